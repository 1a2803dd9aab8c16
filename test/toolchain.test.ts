import { spawnSync } from 'node:child_process';
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('toolchain guard', () => {
  it('runs the project on Node 24 or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it("fails fast with a clear message on an older Node (the machine's own node, outside npm)", () => {
    // Without node_modules/.bin on the PATH, `node` is the system's (older) one that npm itself runs on.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((p) => !p.includes('node_modules'))
      .join(delimiter);
    const version = spawnSync('node', ['--version'], { env: { ...process.env, PATH: path }, encoding: 'utf8' });
    expect(version.error).toBeUndefined();
    const major = Number(version.stdout.trim().replace(/^v/, '').split('.')[0]);
    const out = spawnSync('node', ['infra/check-node.mjs'], { env: { ...process.env, PATH: path }, encoding: 'utf8' });
    if (major >= 24) {
      expect(out.status).toBe(0);
    } else {
      expect(out.status).toBe(1);
      expect(out.stderr).toContain(`This project needs Node.js 24 or newer; this is v${major}`);
    }
  });
});

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

  it('states the Node it needs in package.json (engines), the same major as the pinned node and the guard, and the README says why EBADENGINE is harmless', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.engines?.node).toBe('>=24');
    expect(Number(String(pkg.devDependencies.node).split('.')[0])).toBe(24);
    expect(readFileSync(new URL('../infra/check-node.mjs', import.meta.url), 'utf8')).toContain('major < 24');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('`EBADENGINE` warnings');
  });
});

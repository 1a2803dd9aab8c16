import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of ARCHITECTURE.md (.dependency-cruiser.cjs, run by `npm run lint`) fail when
 * broken: each is run over a small tree that breaks it, in a folder of its own.
 */

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Writes the files into a fresh folder with the project's config and runs dependency-cruiser there. */
async function cruise(files: Record<string, string>): Promise<{ failed: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  dirs.push(dir);
  copyFileSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  mkdirSync(join(dir, 'shared'));
  mkdirSync(join(dir, 'functions'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
  try {
    const out = await run(process.execPath, [bin, 'shared', 'functions', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
      cwd: dir,
      env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
    });
    return { failed: false, output: out.stdout + out.stderr };
  } catch (error) {
    const e = error as { stdout: string; stderr: string };
    return { failed: true, output: e.stdout + e.stderr };
  }
}

const leaf = 'export const x = 1;\n';
const uses = (path: string) => `import { x } from '${path}';\nexport const y = x;\n`;

describe('layer rules', () => {
  it('pass a tree that keeps them', async () => {
    const result = await cruise({
      'shared/schemas/primitives.ts': leaf,
      'shared/model/thing.ts': uses('../schemas/primitives.ts'),
      'shared/db/repositories/things.ts': uses('../../model/thing.ts'),
      'shared/feature/use-case.ts': uses('../db/repositories/things.ts'),
      'shared/http/pipeline.ts': uses('../feature/use-case.ts'),
      'functions/thing/handler.ts': uses('../../shared/http/pipeline.ts'),
    });
    expect(result.output).toContain('no dependency violations found');
    expect(result.failed).toBe(false);
  });

  it.each([
    ['no-circular', { 'shared/feature/a.ts': uses('./b.ts'), 'shared/feature/b.ts': uses('./a.ts') }],
    [
      'shared-never-imports-functions',
      { 'functions/thing/handler.ts': leaf, 'shared/feature/use-case.ts': uses('../../functions/thing/handler.ts') },
    ],
    ['domain-never-imports-http', { 'shared/http/response.ts': leaf, 'shared/feature/use-case.ts': uses('../http/response.ts') }],
    [
      'data-layer-imports-no-domain',
      { 'shared/feature/rules.ts': leaf, 'shared/db/repositories/things.ts': uses('../../feature/rules.ts') },
    ],
    ['model-imports-only-foundation', { 'shared/db/keys.ts': leaf, 'shared/model/thing.ts': uses('../db/keys.ts') }],
    ['foundation-imports-nothing-above', { 'shared/model/thing.ts': leaf, 'shared/errors.ts': uses('./model/thing.ts') }],
    ['features-reach-the-table-through-repositories', { 'shared/db/keys.ts': leaf, 'shared/feature/use-case.ts': uses('../db/keys.ts') }],
    ['table-access-only-in-data-layer', { 'functions/job/work.ts': uses('@aws-sdk/lib-dynamodb') }],
  ])('fail on %s', async (rule, files) => {
    const result = await cruise(files);
    expect(result.failed).toBe(true);
    expect(result.output).toContain(`error ${rule}:`);
  });
});

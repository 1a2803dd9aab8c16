import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The closing line CI reads (test/support/summary-reporter.ts), from real vitest runs in a child
 * process on the fixtures in test/fixtures/summary (outside the suite's include glob), with a config
 * of their own: no DynamoDB Local, no setup files.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const config = 'test/fixtures/summary/vitest.config.ts';
// vitest's own CLI on this Node (npx would add about a second of npm start-up to every run).
const cli = join(root, 'node_modules', 'vitest', 'vitest.mjs');

type Run = { code: number; closing: string | undefined; counted: string[] };

function vitest(...args: string[]): Promise<Run> {
  // The child must not think it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, 'run', '--config', config, ...args], { cwd: root, env, timeout: 50_000 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') return reject(error);
      const lines = stdout.split('\n');
      resolve({
        code: error ? (error.code as number) : 0,
        closing: lines.filter((l) => /^\d+ passed, \d+ failed/.test(l)).at(-1),
        counted: lines.filter((l) => l.startsWith('counted as failed: ')).map((l) => l.slice('counted as failed: '.length)),
      });
    });
  });
}

describe.concurrent('the closing line `N passed, N failed`', { timeout: 60_000 }, () => {
  it('counts a file that fails to load and a suite whose beforeAll throws as failed, and exits non-zero', async () => {
    const run = await vitest('passes.fixture.ts', 'import-throws.fixture.ts', 'before-all-throws.fixture.ts');
    expect(run.closing).toBe('1 passed, 2 failed');
    expect(run.code).not.toBe(0);
    expect(run.counted).toEqual([
      'before-all-throws.fixture.ts > a suite whose setup throws > never runs: never ran, suite "a suite whose setup throws" threw: Error: the setup throws',
      'import-throws.fixture.ts: the file threw: Error: this module fails to load',
    ]);
  });

  it('counts failed beforeEach and afterAll hooks, tests under a nested failed setup, skips and unhandled errors', async () => {
    const run = await vitest(
      'before-each-throws.fixture.ts',
      'after-all-throws.fixture.ts',
      'nested-setup-throws.fixture.ts',
      'skips.fixture.ts',
      'unhandled.fixture.ts',
    );
    // passed: the test before the failing afterAll, the outer test, the test that leaves an error behind;
    // failed: the afterAll, the beforeEach's test, 2 under the inner beforeAll, 3 skips, 1 unhandled error.
    expect(run.closing).toBe('3 passed, 8 failed');
    expect(run.code).not.toBe(0);
    expect(run.counted).toEqual([
      'after-all-throws.fixture.ts > a suite whose teardown throws: suite "a suite whose teardown throws" threw: Error: the teardown throws',
      'nested-setup-throws.fixture.ts > outer > inner, whose setup throws > never runs (1): never ran, suite "inner, whose setup throws" threw: Error: the inner setup throws',
      'nested-setup-throws.fixture.ts > outer > inner, whose setup throws > never runs (2): never ran, suite "inner, whose setup throws" threw: Error: the inner setup throws',
      'skips.fixture.ts > is skipped: skipped',
      'skips.fixture.ts > is a todo: a todo',
      'skips.fixture.ts > skips itself: skipped: not today',
    ]);
  });

  it('reads `N passed, 0 failed` and exits 0 when every test passes', async () => {
    const run = await vitest('passes.fixture.ts');
    expect(run).toEqual({ code: 0, closing: '1 passed, 0 failed', counted: [] });
  });

  it('shows the tests left out by a -t filter as skipped, not failed', async () => {
    const run = await vitest('passes.fixture.ts', 'skips.fixture.ts', '-t', '^passes$');
    expect(run).toEqual({ code: 0, closing: '1 passed, 0 failed, 3 skipped', counted: [] });
  });

  it('still fails a test picked by a -t filter whose beforeAll threw', async () => {
    const run = await vitest('nested-setup-throws.fixture.ts', '-t', 'never runs \\(1\\)');
    expect(run.closing).toBe('0 passed, 1 failed, 2 skipped');
    expect(run.code).not.toBe(0);
  });
});

import type { Reporter, TestCase, TestModule, TestSpecification, TestSuite, Vitest } from 'vitest/node';

/**
 * Prints the closing line CI reads, `N passed, N failed`, and exits non-zero when N failed > 0.
 *
 * Every test counts once: passed, or failed. Failed covers, beside the tests vitest calls failed:
 * - a test that never ran because a `beforeAll` of its file or suite threw (vitest marks those
 *   skipped; a `beforeEach` that throws already fails its test);
 * - a test that did not finish (a run cut short);
 * - a skipped test (`it.skip`, `it.todo`, `context.skip()`, the others of an `.only`): the project
 *   has no skipped tests, so a skip is a failure, never a quiet pass. Only in a run narrowed on the
 *   command line (`-t`, `file:line`, tags) are the tests it left out shown as `, N skipped` after
 *   the line and not failed (vitest marks them like `it.skip`, which there counts the same way);
 *   `npm test` and CI never narrow.
 * A file that fails to load, and a suite whose hooks or collection threw with no failed test to
 * show for it (an `afterAll`, say), count one failure each: a failed file never adds 0. Each
 * unhandled error counts one. What is counted as failed beyond vitest's own failed tests and
 * unhandled errors is named above the line (`counted as failed: <where>: <why>`).
 */
export default class SummaryReporter implements Reporter {
  private narrowedByConfig = false;
  private narrowedBySpecification = false;

  onInit(vitest: Vitest): void {
    this.narrowedByConfig = vitest.config.testNamePattern !== undefined || vitest.config.tagsFilter !== undefined;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.narrowedBySpecification = specifications.some(
      (s) => s.testLines?.length || s.testNamePattern || s.testIds?.length || s.testNames?.length || s.testTagsFilter?.length,
    );
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const narrowed = this.narrowedByConfig || this.narrowedBySpecification;
    const notes: string[] = [];
    let passed = 0;
    let failed = 0;
    let skipped = 0;

    const test = (t: TestCase, setupError: string | undefined): boolean => {
      const { state } = t.result();
      if (state === 'passed') {
        passed++;
        return false;
      }
      if (state === 'failed') {
        failed++;
        return true;
      }
      if (state === 'skipped' && narrowed && t.options.mode !== 'run') {
        skipped++;
        return false;
      }
      if (state === 'pending') notes.push(`${where(t)}: did not finish`);
      else if (setupError !== undefined) notes.push(`${where(t)}: never ran, ${setupError}`);
      else notes.push(`${where(t)}: ${skipReason(t)}`);
      failed++;
      return true;
    };

    // Returns whether something under the suite counted as failed.
    const suite = (s: TestSuite | TestModule, outerSetupError: string | undefined): boolean => {
      const errors = s.errors();
      const own = errors.length ? `${s.type === 'module' ? 'the file' : `suite "${s.name}"`} threw: ${firstLine(errors[0])}` : undefined;
      const setupError = outerSetupError ?? own;
      let any = false;
      for (const child of s.children) {
        if (child.type === 'test' ? test(child, setupError) : suite(child, setupError)) any = true;
      }
      if (any) return true;
      const state = s.state();
      if (own !== undefined || state === 'failed' || (s.type === 'module' && (state === 'queued' || state === 'pending'))) {
        notes.push(`${where(s)}: ${own ?? (state === 'failed' ? 'failed' : 'did not run')}`);
        failed++;
        return true;
      }
      return false;
    };

    const byPath = [...testModules].sort((a, b) => a.relativeModuleId.localeCompare(b.relativeModuleId));
    for (const module of byPath) suite(module, undefined);
    failed += unhandledErrors.length;

    if (failed > 0) process.exitCode = 1;
    const counted = notes.map((n) => `counted as failed: ${n}`).join('\n');
    console.log(`\n${counted ? `${counted}\n` : ''}${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}

function where(entity: TestCase | TestSuite | TestModule): string {
  if (entity.type === 'module') return entity.relativeModuleId;
  return `${entity.module.relativeModuleId} > ${entity.fullName}`;
}

function skipReason(t: TestCase): string {
  if (t.options.mode === 'todo') return 'a todo';
  const result = t.result();
  return result.state === 'skipped' && result.note ? `skipped: ${result.note}` : 'skipped';
}

function firstLine(error: { message?: string; name?: string } | undefined): string {
  const message = `${error?.name ?? 'Error'}: ${error?.message ?? 'unknown error'}`;
  return message.split('\n')[0] ?? message;
}

import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionTimeoutSeconds } from '../shared/http/function-budget.ts';
import { contention } from './support/contention.ts';

/**
 * The suite holds on a busy machine and leaves nothing behind: its budgets are scaled by the
 * machine's contention (a ratio, test/support/contention.ts), and every temporary folder it makes
 * is inside one folder of the run's own, removed when the run ends (test/support/global-setup.ts).
 */
describe('the suite on a shared machine', () => {
  it("makes its temporary folders inside one folder of the run's own", () => {
    expect(basename(tmpdir())).toMatch(/^registrar-tests-/);
    expect(basename(dirname(tmpdir()))).not.toMatch(/^registrar-tests-/);
  });

  it("scales the emulated function timeout by the machine's contention, never below the stack's", () => {
    expect(Number(process.env.LOCAL_FUNCTION_TIMEOUT_MS)).toBeGreaterThanOrEqual(functionTimeoutSeconds * 1000);
    expect(Number(process.env.LOCAL_FUNCTION_TIMEOUT_MS)).toBeLessThanOrEqual(functionTimeoutSeconds * 1000 * 10);
  });

  it('measures contention as a ratio of wall time to CPU time: 1 or more, capped', () => {
    const ratio = contention(20, 10);
    expect(ratio).toBeGreaterThanOrEqual(1);
    expect(ratio).toBeLessThanOrEqual(10);
  });
});

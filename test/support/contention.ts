/**
 * How much of the wall clock this process gets now, as a ratio: the wall time of a short
 * CPU-bound loop over the CPU time it took. 1 on an idle machine; about 5 when a 2-core machine
 * runs at a load near 10. The suite's time budgets (the emulated function timeout, vitest's test
 * and hook timeouts) are scaled by it, so they hold on a busy machine, while what they compare
 * stays relative: a handler that is slow for the machine it runs on still runs out of time.
 */
export function contention(sampleMs = 50, cap = 10): number {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let x = 0;
  while (performance.now() - started < sampleMs) {
    for (let i = 0; i < 10_000; i++) x = (x * 31 + i) % 1_000_003;
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  // x is used, so the loop is not optimized away.
  return x < 0 ? 1 : Math.min(cap, Math.max(1, wallMs / Math.max(cpuMs, 1)));
}

/** A time budget (ms) in proportion to the contention the test file measured at its start (test/support/setup.ts). */
export function budget(ms: number): number {
  const slowdown = Number(process.env.TEST_SLOWDOWN);
  return Math.round(ms * (Number.isFinite(slowdown) && slowdown >= 1 ? slowdown : 1));
}

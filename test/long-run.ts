import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

/**
 * Long runs of the hardening suites, outside `npm test`:
 *   npm run fuzz -- --runs 10000 [--seed S]   the fuzz properties with N cases in total
 *   npm run stress -- --rounds 20             the race suite and the crash test N times over
 * Each runs vitest on the suite's files with the count in the environment, and no per-test timeout.
 */
const suites = {
  fuzz: { files: ['test/fuzz.test.ts'], option: 'runs', env: ['FUZZ_RUNS'], fallback: '10000' },
  stress: { files: ['test/races.test.ts', 'test/crash.test.ts'], option: 'rounds', env: ['RACE_ROUNDS', 'CRASH_ROUNDS'], fallback: '10' },
} as const;

const [name, ...args] = process.argv.slice(2);
const suite = suites[name as keyof typeof suites];
if (!suite) {
  console.error(`Usage: tsx test/long-run.ts <${Object.keys(suites).join('|')}> [--runs N | --rounds N] [--seed S]`);
  process.exit(2);
}
const { values } = parseArgs({
  args,
  options: { runs: { type: 'string' }, rounds: { type: 'string' }, seed: { type: 'string' } },
});
const count = values[suite.option] ?? suite.fallback;
if (!/^[1-9][0-9]*$/.test(count)) {
  console.error(`--${suite.option} must be a positive integer`);
  process.exit(2);
}
const env = {
  ...process.env,
  ...Object.fromEntries(suite.env.map((name) => [name, count])),
  ...(values.seed ? { FUZZ_SEED: values.seed } : {}),
};
const out = spawnSync('npx', ['vitest', 'run', ...suite.files, '--testTimeout=0', '--hookTimeout=0'], { stdio: 'inherit', env });
process.exit(out.status ?? 1);

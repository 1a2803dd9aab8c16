/**
 * Only the process list section of the benchmark (bench/process-list.ts), without the rest of
 * `npm run bench`: `npx tsx bench/process-list-only.ts [10000] [100000]` (every size without one). It starts its own DynamoDB Local, or
 * with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a table of its own,
 * deleted at the end).
 */
import { runStandalone } from './standalone.ts';

await runStandalone('the process list at real sizes', async () => {
  await (await import('./process-list.ts')).benchProcessList(process.argv.slice(2).map(Number));
});

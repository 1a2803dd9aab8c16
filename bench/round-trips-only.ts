/**
 * Only the round-trips section of the benchmark (bench/round-trips.ts), without the rest of
 * `npm run bench`: `npx tsx bench/round-trips-only.ts`. It starts its own DynamoDB Local, or
 * with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a table of its own,
 * deleted at the end).
 */
import { runStandalone } from './standalone.ts';

await runStandalone('round trips', async () => {
  await (await import('./round-trips.ts')).benchRoundTrips();
});

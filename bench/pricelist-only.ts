/**
 * Only the price list's first request of the benchmark (bench/pricelist.ts), without the rest of
 * `npm run bench`: `npx tsx bench/pricelist-only.ts [entries] [runs]` (default 60000 and 5). It
 * starts its own DynamoDB Local, or with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already
 * running (in a table of its own, deleted at the end).
 */
import { runStandalone } from './standalone.ts';

await runStandalone("the price list's first request", async () => {
  await (await import('./pricelist.ts')).benchPriceListFirst(Number(process.argv[2] ?? 60_000), Number(process.argv[3] ?? 5));
});

/**
 * Only the contact list section of the benchmark (bench/contact-list.ts), without the rest of
 * `npm run bench`: `npx tsx bench/contact-list-only.ts [count]` (default 10000). It starts its own DynamoDB Local, or
 * with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a table of its own,
 * deleted at the end).
 */
import { runStandalone } from './standalone.ts';

await runStandalone('the contact list at the size of a big address book', async () => {
  await (await import('./contact-list.ts')).benchContactList(Number(process.argv[2] ?? 10_000));
});

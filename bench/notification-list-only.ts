/**
 * Only the notification queue section of the benchmark (bench/notification-list.ts), without the rest of
 * `npm run bench`: `npx tsx bench/notification-list-only.ts [20] [21000] [200000]` (20 and 21,000 without one). It starts its own DynamoDB Local, or
 * with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a table of its own,
 * deleted at the end).
 */
import { runStandalone } from './standalone.ts';

await runStandalone('the notification queue at real sizes', async () => {
  const sizes = process.argv.slice(2).map(Number);
  await (await import('./notification-list.ts')).benchNotificationList(sizes.length > 0 ? sizes : undefined);
});

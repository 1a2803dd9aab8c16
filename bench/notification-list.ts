import { randomUUID } from 'node:crypto';
import { handler as poll } from '../functions/notification-poll/handler.ts';
import { handler as notifications } from '../functions/notifications/handler.ts';
import { lambdaContext } from '../infra/local/gateway.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import {
  countNotificationsInto,
  emptyNotificationShardCounts,
  readNotificationCounts,
  writeNotificationCounts,
} from '../shared/db/repositories/notification-counts.ts';
import { countedNotification, notificationItem } from '../shared/db/repositories/notifications.ts';
import type { NotificationRecord } from '../shared/model/notification.ts';
import { apiEvent } from '../test/support/api.ts';
import { fullItemsRead, recordTableCalls } from '../test/support/sdk-calls.ts';
import { ms, percentile, quietly, table } from './report.ts';

/**
 * The notification queue at real sizes (docs/notifications.md, "Cost at scale"): a customer with
 * 20 unacknowledged notifications and one with many (21,000 by default, the size at which the
 * listing used to refuse; `200000` as an argument of bench/notification-list-only.ts), through the
 * real handlers: the default listing (which counts), `limit=0`, and the poll: calls, index entries
 * and whole items read, the median time.
 */

type Answer = { statusCode: number; body: string };

/** Writes `count` unacknowledged notifications of `customer` (BatchWrite), and their counts as the writes keep them. */
async function load(customer: string, count: number): Promise<void> {
  const start = Date.parse('2026-06-01T00:00:00Z');
  const records: NotificationRecord[] = Array.from({ length: count }, (_, i) => ({
    id: 50_000_000 + i,
    customer,
    fireDate: new Date(start + i * 1000).toISOString().replace('.000', ''),
    message: `The transfer of ${customer}-${i}.com waits for the losing registrar.`,
    eventType: 'TransferDomainEvent',
    notificationType: 'TransferDomainNotification',
    isAsync: true,
    subjectStatus: 'PENDING',
    statusDetail: 'pending',
    process: 1_000 + i,
    processType: 'domain',
    processIdentifier: `${customer}-${i}.com`,
    domainName: `${customer}-${i}.com`,
  }));
  await batchWriteAll(records.map((r) => ({ put: notificationItem(r) })));
  const shards = emptyNotificationShardCounts();
  countNotificationsInto(shards, records.map(countedNotification));
  await writeNotificationCounts(customer, shards, (await readNotificationCounts(customer, true)).versions);
}

function event(customer: string, path: string, query: Record<string, string>) {
  const e = apiEvent({ method: 'GET', path, resource: path, principal: { customer, user: 'bench', permissions: [] } });
  e.pathParameters = { customer };
  const any = Object.keys(query).length > 0;
  e.queryStringParameters = any ? query : null;
  e.multiValueQueryStringParameters = any ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null;
  return e;
}

/** Runs the section for the given sizes (default 20 and 21,000). */
export async function benchNotificationList(sizes: readonly number[] = [20, 21_000], runs = 10): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const size of sizes) {
    const customer = `notify${size}`;
    const loadStart = performance.now();
    await quietly(() => load(customer, size));
    const loadSeconds = ((performance.now() - loadStart) / 1000).toFixed(0);
    const shapes: [string, () => Promise<Answer>][] = [
      [
        'list (default: 10, counted)',
        async () =>
          (await notifications(
            event(customer, `/v2/customers/${customer}/notifications`, {}),
            lambdaContext('bench', randomUUID()),
          )) as never,
      ],
      [
        'limit=0',
        async () =>
          (await notifications(
            event(customer, `/v2/customers/${customer}/notifications`, { limit: '0' }),
            lambdaContext('bench', randomUUID()),
          )) as never,
      ],
      [
        'poll',
        async () =>
          (await poll(event(customer, `/v2/customers/${customer}/notifications/poll`, {}), lambdaContext('bench', randomUUID()))) as never,
      ],
    ];
    for (const [label, once] of shapes) {
      const { result, details } = await quietly(() => recordTableCalls(once));
      const read = details.reduce((n, d) => n + d.itemsRead, 0);
      const whole = fullItemsRead(details);
      const samples: number[] = [];
      await quietly(async () => {
        for (let i = 0; i < runs + 3; i++) {
          const t = performance.now();
          await once();
          if (i >= 3) samples.push(performance.now() - t);
        }
      });
      samples.sort((x, y) => x - y);
      const answer = JSON.parse(result.body) as { pagination?: { total?: number }; count?: number };
      rows.push([
        size.toLocaleString('en'),
        label,
        result.statusCode,
        answer.pagination?.total ?? answer.count ?? '-',
        details.length,
        read - whole,
        whole,
        ms(percentile(samples, 50)),
        `${loadSeconds} s`,
      ]);
    }
  }
  table(
    `Scale: the notification queue at ${sizes.map((s) => s.toLocaleString('en')).join(' and ')} unacknowledged notifications (through the handlers, ${runs} runs each after 3 warm-up runs)`,
    ['notifications', 'request', 'status', 'total / count', 'calls', 'index entries read', 'whole items read', 'p50 ms', 'loaded in'],
    rows,
    ['request'],
  );
}

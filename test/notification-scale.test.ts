import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as countsHandler } from '../functions/notification-counts/handler.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { db } from '../shared/db/client.ts';
import { keys } from '../shared/db/keys.ts';
import { notificationWrites } from '../shared/db/repositories/notifications.ts';
import { tableName } from '../shared/db/table.ts';
import { transact } from '../shared/db/transactions.ts';
import { type NotificationRecord, notificationRetention } from '../shared/model/notification.ts';
import { repairNotificationCounts } from '../shared/notifications/repair-counts.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { fullItemsRead, recordTableCalls } from './support/sdk-calls.ts';
import { withTableStream } from './support/table-stream.ts';

/**
 * Notifications cost the same at 20 and at thousands: the listing's total, `limit=0` and the poll
 * read the customer's kept counts (8 small shard items) and about `limit` notifications, never the
 * queue; the counts move with every write, with each acknowledgement and with each deletion (the
 * table's TTL at the end of a notification's retention, seen on the stream), and are repaired.
 */

withTableStream();

const base = '/v2/customers/demo/notifications';
const dayMs = 86_400_000;
let feeder: StreamFeeder;
let nextId = 7_000_000_000;
/** Every batch the feeder handed to the real consumer. */
const handedOver: DynamoDBStreamEvent[] = [];

beforeAll(async () => {
  feeder = await startStreamFeeder({
    tableName: tableName(),
    consumers: streamConsumers.filter((c) => c.id === 'notification-counts'),
    handlerOf: async () => (event: DynamoDBStreamEvent) => {
      handedOver.push(event);
      return countsHandler(event);
    },
    pollIntervalMs: 50,
    retryDelayMs: 100,
    log: () => {},
  });
  await feeder.drain(60_000);
}, 120_000);

afterAll(async () => {
  await feeder?.stop();
});

function notification(fireDate: string): NotificationRecord {
  const id = ++nextId;
  return {
    id,
    customer: 'demo',
    fireDate,
    message: `Notification ${id}.`,
    eventType: 'TransferDomainEvent',
    notificationType: 'TransferDomainNotification',
    isAsync: true,
    subjectStatus: 'PENDING',
    statusDetail: 'pending',
  };
}

/** Writes `n` notifications of demo through the outbox's writes (counts and all), 40 a transaction. */
async function writeNotifications(n: number, start = Date.parse('2026-01-01T00:00:00Z')): Promise<NotificationRecord[]> {
  const written: NotificationRecord[] = [];
  const batches: NotificationRecord[][] = [];
  for (let i = 0; i < n; i += 40) {
    batches.push(
      Array.from({ length: Math.min(40, n - i) }, (_, j) =>
        notification(new Date(start + (i + j) * 1000).toISOString().replace('.000', '')),
      ),
    );
  }
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(batches.slice(i, i + 8).map((batch) => transact(notificationWrites(...batch))));
  }
  for (const batch of batches) written.push(...batch);
  return written;
}

/** What the three reads cost: calls and items read (index entries not counted, nor the authorizer's key). */
async function costs(): Promise<Record<string, { calls: number; items: number }>> {
  const out: Record<string, { calls: number; items: number }> = {};
  for (const [name, url] of [
    ['list', base],
    ['limit=0', `${base}?limit=0`],
    ['poll', `${base}/poll`],
  ] as const) {
    await call('GET', url); // the authorizer's cache warm, so only the function's own calls are recorded
    const { result, details } = await recordTableCalls(() => call('GET', url));
    expect(result.status).toBe(200);
    out[name] = { calls: details.length, items: fullItemsRead(details) };
  }
  return out;
}

async function totals(): Promise<{ all: number; unacknowledged: number; poll: number }> {
  const all = await call('GET', `${base}?limit=0`);
  const unacknowledged = await call('GET', `${base}?limit=0&acknowledgeDate:null=`);
  const polled = await call('GET', `${base}/poll`);
  return { all: all.body.pagination.total, unacknowledged: unacknowledged.body.pagination.total, poll: polled.body.count };
}

describe('notification counts: kept with every write, acknowledgement and deletion', { timeout: 120_000 }, () => {
  it('counts what is written and acknowledged; the listing, limit=0 and the poll read them', async () => {
    const start = await totals();
    const written = await writeNotifications(30, Date.parse('2026-02-01T00:00:00Z'));
    expect(await totals()).toEqual({ all: start.all + 30, unacknowledged: start.unacknowledged + 30, poll: start.poll + 30 });
    const first = written[0] as NotificationRecord;
    expect((await call('POST', `${base}/${first.id}/ack`)).status).toBe(204);
    // Acknowledged again: nothing moves.
    expect((await call('POST', `${base}/${first.id}/ack`)).status).toBe(204);
    expect(await totals()).toEqual({ all: start.all + 30, unacknowledged: start.unacknowledged + 29, poll: start.poll + 29 });
    expect((await call('POST', `${base}/999999999999/ack`)).status).toBe(404);
  });

  it('gives each notification its retention through the table TTL: fired + 180 days, acknowledged + 30 days', async () => {
    const [n] = (await writeNotifications(1, Date.parse('2026-03-01T00:00:00Z'))) as [NotificationRecord];
    const read = async () =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: keys.notificationById('demo', n.id), ConsistentRead: true }))).Item;
    expect((await read())?.expiresAt).toBe((Date.parse(n.fireDate) + notificationRetention.unacknowledgedDays * dayMs) / 1000);
    const before = Date.now();
    expect((await call('POST', `${base}/${n.id}/ack`)).status).toBe(204);
    const item = await read();
    const expected = Date.parse(String(item?.acknowledgeDate)) / 1000 + notificationRetention.acknowledgedDays * 86_400;
    expect(item?.expiresAt).toBe(expected);
    expect(expected * 1000).toBeGreaterThanOrEqual(before - 1000 + notificationRetention.acknowledgedDays * dayMs);
  });

  it('takes a deleted notification (as the TTL deletes it) from the counts through the stream, once even when handed over twice', async () => {
    const [waiting, acked] = (await writeNotifications(2, Date.parse('2026-04-01T00:00:00Z'))) as [NotificationRecord, NotificationRecord];
    expect((await call('POST', `${base}/${acked.id}/ack`)).status).toBe(204);
    const start = await totals();
    for (const n of [waiting, acked]) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.notificationById('demo', n.id) }));
    }
    await feeder.drain(30_000);
    expect(await totals()).toEqual({ all: start.all - 2, unacknowledged: start.unacknowledged - 1, poll: start.poll - 1 });

    // The same REMOVE record handed over again (a retried batch) is not counted again.
    const [gone] = (await writeNotifications(1, Date.parse('2026-04-02T00:00:00Z'))) as [NotificationRecord];
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.notificationById('demo', gone.id) }));
    await feeder.drain(30_000);
    const after = await totals();
    const record = handedOver
      .flatMap((e) => e.Records)
      .find((r) => r.eventName === 'REMOVE' && r.dynamodb?.Keys?.sk?.S === keys.notificationById('demo', gone.id).sk);
    expect(record).toBeDefined();
    for (let i = 0; i < 3; i++) expect(await countsHandler({ Records: [record as never] })).toEqual({ batchItemFailures: [] });
    expect(await totals()).toEqual(after);
  });

  it('repairs counts that drifted (npm run admin -- repair-counts)', async () => {
    const truth = await totals();
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notificationCounts('demo', 3),
        UpdateExpression: 'ADD #all :n, #u :n',
        ExpressionAttributeNames: { '#all': 'all', '#u': 'unacknowledged' },
        ExpressionAttributeValues: { ':n': 17 },
      }),
    );
    expect((await totals()).all).toBe(truth.all + 17);
    const repair = await repairNotificationCounts('demo');
    expect(repair.changed).toEqual({
      all: { before: truth.all + 17, after: truth.all },
      unacknowledged: { before: truth.unacknowledged + 17, after: truth.unacknowledged },
    });
    expect(await totals()).toEqual(truth);
    expect((await repairNotificationCounts('demo')).changed).toEqual({});
  });
});

describe('the same cost at 20 and at 2,000 notifications', { timeout: 300_000 }, () => {
  it('reads the counts and about `limit` notifications for the listing, limit=0 and the poll', async () => {
    // Everything left waiting so far acknowledged, then 20 waiting.
    for (;;) {
      const polled = await call('GET', `${base}/poll`);
      if (!polled.body.notification) break;
      expect((await call('POST', `${base}/${polled.body.notification.id}/ack`)).status).toBe(204);
    }
    await writeNotifications(20, Date.parse('2026-05-01T00:00:00Z'));
    const small = await costs();
    await writeNotifications(1_980, Date.parse('2026-05-02T00:00:00Z'));
    const large = await costs();
    expect((await totals()).unacknowledged).toBe(2_000);
    expect(large).toEqual(small);
    // The default page of 10 (list), the 8 count shards, the poll's oldest: never the queue.
    expect(large.list?.items).toBeLessThanOrEqual(10 + 8);
    expect(large['limit=0']?.items).toBeLessThanOrEqual(8);
    expect(large.poll?.items).toBeLessThanOrEqual(10 + 8 + 1);
    expect(large.poll?.calls).toBeLessThanOrEqual(3);
  });
});

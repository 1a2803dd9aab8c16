import { createHash } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../client.ts';
import { batchGetAll } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { TransactItem } from '../transactions.ts';

/**
 * A customer's notification counts, as shared/db/repositories/process-counts.ts keeps the process
 * counts: how many notifications in all and how many wait unacknowledged, so the listing's `total`,
 * `limit=0` and the poll read a constant number of items whatever the size of the queue.
 *
 * - A new notification adds to them in the transaction that writes it (`notificationWrites`), an
 *   acknowledgement takes from `unacknowledged` in its own transaction (only the first one: it is
 *   conditional on the notification not being acknowledged yet).
 * - A notification deleted (by the table's TTL, at the end of its retention, or by anyone) is taken
 *   from them by the `notification-counts` stream consumer, which sees every REMOVE: one
 *   transaction per removal, with the stream record's id as its idempotency token, so a record
 *   handed over again within DynamoDB's 10 minutes is not counted twice.
 * - What drifts anyway (a write that bypassed the repositories, a record retried after 10 minutes,
 *   a restore) is repaired by `npm run admin -- repair-counts` (shared/notifications/repair-counts.ts),
 *   which recounts a customer's notifications and replaces the shards no write moved meanwhile.
 *
 * Sharded as the process counts are (`id % notificationCountShards`), each shard carrying `version`.
 */

export const notificationCountShards = 8;
export const notificationCountsEntity = 'notificationCounts';

/** What a notification counts under: every one in `all`, the unacknowledged ones in `unacknowledged` too. */
export interface NotificationCounted {
  customer: string;
  id: number;
  unacknowledged: boolean;
}

/** A change of a customer's counts. */
export interface CountDelta {
  all: number;
  unacknowledged: number;
}

const shardOf = (id: number) => id % notificationCountShards;

function update(customer: string, shard: number, delta: CountDelta): TransactItem['Update'] {
  return {
    TableName: tableName(),
    Key: keys.notificationCounts(customer, shard),
    UpdateExpression: 'SET #e = :entity ADD #all :all, #unack :unack, #v :one',
    ExpressionAttributeNames: { '#e': 'entity', '#all': 'all', '#unack': 'unacknowledged', '#v': 'version' },
    ExpressionAttributeValues: { ':entity': notificationCountsEntity, ':all': delta.all, ':unack': delta.unacknowledged, ':one': 1 },
  };
}

/**
 * The transaction items that add or take `sign` times these notifications to their customers'
 * counts: one update per customer and shard (a transaction may not touch an item twice).
 */
export function notificationCountWrites(notifications: readonly NotificationCounted[], sign: 1 | -1 = 1): TransactItem[] {
  const byShard = new Map<string, { customer: string; shard: number; delta: CountDelta }>();
  for (const n of notifications) {
    const shard = shardOf(n.id);
    const key = `${n.customer}#${shard}`;
    const entry = byShard.get(key) ?? { customer: n.customer, shard, delta: { all: 0, unacknowledged: 0 } };
    entry.delta.all += sign;
    if (n.unacknowledged) entry.delta.unacknowledged += sign;
    byShard.set(key, entry);
  }
  return [...byShard.values()].map(({ customer, shard, delta }) => ({ Update: update(customer, shard, delta) }));
}

/** The transaction item taking one notification from the unacknowledged count (its acknowledgement). */
export function acknowledgedCountWrite(customer: string, id: number): TransactItem {
  return { Update: update(customer, shardOf(id), { all: 0, unacknowledged: -1 }) };
}

/** A customer's counts, summed over the shards (absent shards count 0). */
export interface NotificationCounts extends CountDelta {
  /** The version of each shard as read (absent: 0). */
  versions: number[];
  /** Items read. */
  read: number;
}

/** Reads a customer's counts: one BatchGet of its shards. */
export async function readNotificationCounts(customer: string, consistent = false): Promise<NotificationCounts> {
  const shardKeys = Array.from({ length: notificationCountShards }, (_, shard) => keys.notificationCounts(customer, shard));
  const items = await batchGetAll(shardKeys, { consistent });
  const out: NotificationCounts = {
    all: 0,
    unacknowledged: 0,
    versions: Array<number>(notificationCountShards).fill(0),
    read: items.length,
  };
  for (const item of items) {
    const shard = shardKeys.findIndex((k) => k.pk === item.pk);
    if (shard >= 0) out.versions[shard] = Number(item.version ?? 0);
    out.all += Number(item.all ?? 0);
    out.unacknowledged += Number(item.unacknowledged ?? 0);
  }
  // A count below zero (a removal counted before its insert was repaired) reads as none.
  out.all = Math.max(0, out.all);
  out.unacknowledged = Math.max(0, Math.min(out.all, out.unacknowledged));
  return out;
}

/**
 * Takes removed notifications from their customers' counts, one transaction per removal with an
 * idempotency token made from `token` (the stream record's id): DynamoDB answers a transaction
 * sent again with the same token within 10 minutes as done, without applying it twice.
 */
export async function countRemoval(removed: NotificationCounted, token: string): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: notificationCountWrites([removed], -1),
      ClientRequestToken: createHash('sha256').update(`notification-removed#${token}`).digest('hex').slice(0, 36),
    }),
  );
}

/** Counts by shard, as a repair counted them. */
export type NotificationShardCounts = CountDelta[];

export function emptyNotificationShardCounts(): NotificationShardCounts {
  return Array.from({ length: notificationCountShards }, () => ({ all: 0, unacknowledged: 0 }));
}

/** Adds notifications to counts by shard (in place). */
export function countNotificationsInto(shards: NotificationShardCounts, notifications: readonly NotificationCounted[]): void {
  for (const n of notifications) {
    const counts = shards[shardOf(n.id)] as CountDelta;
    counts.all++;
    if (n.unacknowledged) counts.unacknowledged++;
  }
}

/**
 * Replaces a customer's counts with `shards`, each shard only if its version is still the one read
 * before the recount: answers the shards a write raced (count them again).
 */
export async function writeNotificationCounts(
  customer: string,
  shards: NotificationShardCounts,
  versions: readonly number[],
): Promise<number[]> {
  const raced: number[] = [];
  await Promise.all(
    shards.map(async (counts, shard) => {
      const version = versions[shard] ?? 0;
      try {
        await db().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...keys.notificationCounts(customer, shard), entity: notificationCountsEntity, version: version + 1, ...counts },
            ConditionExpression: version === 0 ? 'attribute_not_exists(version) OR version = :v' : 'version = :v',
            ExpressionAttributeValues: { ':v': version },
          }),
        );
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        raced.push(shard);
      }
    }),
  );
  return raced.sort((a, b) => a - b);
}

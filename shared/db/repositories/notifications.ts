import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { acknowledgedExpiry, NotificationRecord, unacknowledgedExpiry } from '../../model/notification.ts';
import { db } from '../client.ts';
import { getItem, parseItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, type TransactItem, transact } from '../transactions.ts';
import { acknowledgedCountWrite, type NotificationCounted, notificationCountWrites } from './notification-counts.ts';

/**
 * A customer's notifications (shared/model/notification.ts). Each is written by the transaction of
 * the state change it reports (`notificationWrites`, the outbox), and read, marked read and
 * acknowledged here. The poll queue is gsi1 (unacknowledged only, oldest first), the listing gsi2
 * (every notification, by fire date).
 */

export const notificationEntity = 'notification';

/**
 * The item of a notification: its keys, and `expiresAt`, when the table's TTL deletes it (its
 * retention: shared/model/notification.ts, notificationRetention).
 */
export function notificationItem(n: NotificationRecord): Record<string, unknown> {
  const expiresAt = n.acknowledgeDate === undefined ? unacknowledgedExpiry(n.fireDate) : acknowledgedExpiry(n.acknowledgeDate);
  return { ...toItem(keys.notification(n.customer, n.id, n.fireDate, n.acknowledgeDate === undefined), notificationEntity, n), expiresAt };
}

/** What a notification counts under (shared/db/repositories/notification-counts.ts). */
export function countedNotification(n: Pick<NotificationRecord, 'customer' | 'id' | 'acknowledgeDate'>): NotificationCounted {
  return { customer: n.customer, id: n.id, unacknowledged: n.acknowledgeDate === undefined };
}

/**
 * The transaction items writing these notifications, for the repository that records the change
 * they report (added after its own items, so the positions its cancellation reasons are read at
 * do not move). A plain Put without a condition: the id is the change's own (model/notification.ts),
 * so a transaction written again writes the same notification, and a condition here could never
 * be what cancels it.
 */
export function notificationWrites(...notifications: (NotificationRecord | undefined)[]): TransactItem[] {
  const written = notifications.filter((n): n is NotificationRecord => n !== undefined);
  if (written.length === 0) return [];
  return [
    ...written.map((n) => ({ Put: { TableName: tableName(), Item: notificationItem(n) } })),
    // The customer's counts, in the same transaction (the listing's total and the poll's count).
    ...notificationCountWrites(written.map(countedNotification)),
  ];
}

/** A notification that reports no state change of the service's (a retrieve from a zone's master that failed), written alone with its counts. */
export async function putNotification(n: NotificationRecord): Promise<void> {
  await transact(notificationWrites(n));
}

/** One notification of a customer, by id (a strongly consistent read); undefined when it has none with that id. */
export function getNotification(customer: string, id: number): Promise<NotificationRecord | undefined> {
  return getItem(keys.notificationById(customer, id), NotificationRecord, notificationEntity, true);
}

/**
 * Marks a notification read (`readDate`, the first time only) and answers it as it now is;
 * undefined when the customer has no notification with that id.
 */
export async function markNotificationRead(customer: string, id: number, at: string): Promise<NotificationRecord | undefined> {
  return stamp(customer, id, 'SET readDate = if_not_exists(readDate, :at)', at);
}

/**
 * Acknowledges a notification: `acknowledgeDate` (and `readDate`) set the first time, it leaves
 * the poll queue (its gsi1 keys go), its retention becomes the acknowledged one (`expiresAt`) and
 * the unacknowledged count goes down by one, in one transaction. Acknowledged again: nothing
 * changes. False when the customer has no such notification.
 */
export async function acknowledgeNotification(customer: string, id: number, at: string): Promise<boolean> {
  try {
    await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.notificationById(customer, id),
          UpdateExpression:
            'SET acknowledgeDate = :at, readDate = if_not_exists(readDate, :at), expiresAt = :expires REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(acknowledgeDate)',
          ExpressionAttributeValues: { ':at': at, ':expires': acknowledgedExpiry(at) },
        },
      },
      acknowledgedCountWrite(customer, id),
    ]);
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.[0] !== 'ConditionalCheckFailed') throw error;
    // Missing, or acknowledged already (then the ack is answered as done).
    return (await getNotification(customer, id)) !== undefined;
  }
}

/**
 * The oldest notifications of the poll queue (gsi1, unacknowledged only, by fire date), at most
 * `limit`: one Query.
 */
export async function readOldestUnacknowledged(customer: string, limit: number): Promise<NotificationRecord[]> {
  return (await readNotificationPage(customer, 'unacknowledged', { limit, ascending: true })).notifications;
}

/**
 * Every notification of a customer as it counts, read over the keys-only indexes (about 100 bytes
 * an entry, 1 MB a Query): the ids in gsi2keys, the unacknowledged ones in gsi1keys. For the
 * count repair.
 */
export async function readNotificationsCounted(customer: string): Promise<{ counted: NotificationCounted[]; reads: number }> {
  const idsOf = async (source: NotificationSource): Promise<{ ids: number[]; reads: number }> => {
    const ids: number[] = [];
    let reads = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await db().send(
        new QueryCommand({
          TableName: tableName(),
          ...sourceQuery(customer, source),
          IndexName: keysOnly[source],
          ProjectionExpression: 'sk',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      reads++;
      for (const item of out.Items ?? []) ids.push(Number(String(item.sk).slice('NOTIFICATION#'.length)));
      start = out.LastEvaluatedKey;
    } while (start);
    return { ids, reads };
  };
  const [all, waiting] = await Promise.all([idsOf('all'), idsOf('unacknowledged')]);
  const unacknowledged = new Set(waiting.ids);
  return {
    counted: all.ids.map((id) => ({ customer, id, unacknowledged: unacknowledged.has(id) })),
    reads: all.reads + waiting.reads,
  };
}

/** Records that a webhook delivered the notification (`deliveryDate`, the first time only). */
export async function markNotificationDelivered(customer: string, id: number, at: string): Promise<void> {
  await stamp(customer, id, 'SET deliveryDate = if_not_exists(deliveryDate, :at)', at);
}

async function stamp(customer: string, id: number, update: string, at: string): Promise<NotificationRecord | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notificationById(customer, id),
        UpdateExpression: update,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes && parseItem(NotificationRecord, notificationEntity, out.Attributes);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/** Where a listing reads: every notification (gsi2) or the unacknowledged ones (gsi1), by fire date. */
export type NotificationSource = 'all' | 'unacknowledged';

export interface NotificationPage {
  notifications: NotificationRecord[];
  /** Items read (what a listing counts against its read budget). */
  read: number;
  /** Where the next page starts, when there is one. */
  next?: Record<string, unknown>;
}

function sourceQuery(customer: string, source: NotificationSource) {
  return source === 'all'
    ? {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.notificationsOfCustomer(customer).gsi2pk },
      }
    : {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.unacknowledgedNotifications(customer).gsi1pk },
      };
}

/** One page of a customer's notifications by fire date (oldest first with `ascending`), at most `limit`. */
export async function readNotificationPage(
  customer: string,
  source: NotificationSource,
  options: { limit: number; ascending: boolean; start?: Record<string, unknown> },
): Promise<NotificationPage> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...sourceQuery(customer, source),
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  return {
    notifications: items.map((item) => parseItem(NotificationRecord, notificationEntity, item)),
    read: items.length,
    ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
  };
}

/**
 * The keys-only twin of a source's index (gsi2keys, gsi1keys: shared/db/table.ts): a count or a
 * skip reads index entries of about 100 bytes there, never the notifications themselves (Select
 * COUNT is charged for the items it examines, whole on an ALL index). Its cursor is the
 * notification's table and index keys, which the source's index takes to go on from.
 */
const keysOnly: Record<NotificationSource, string> = { all: 'gsi2keys', unacknowledged: 'gsi1keys' };

/**
 * Counts a customer's notifications of a source in the listing's order (Select COUNT, paged, over
 * the keys-only twin of its index), stopping at `upTo`: how many, and where the next page would
 * start (undefined when none is left); false when `until` (epoch ms) came first.
 */
async function countAlong(
  customer: string,
  source: NotificationSource,
  upTo: number,
  ascending: boolean,
  until?: number,
): Promise<{ counted: number; next: Record<string, unknown> | undefined } | false> {
  let counted = 0;
  let next: Record<string, unknown> | undefined;
  do {
    // Keys still to count past the listing's time: it is refused (a 400 saying how to narrow it).
    if (until !== undefined && Date.now() >= until) return false;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...sourceQuery(customer, source),
        IndexName: keysOnly[source],
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: Math.max(1, Math.min(upTo - counted, countPageKeys)),
        ...(next ? { ExclusiveStartKey: next } : {}),
      }),
    );
    counted += out.Count ?? 0;
    next = out.LastEvaluatedKey;
  } while (counted < upTo && next);
  return { counted, next };
}

/** A notification from a stream record's image (DynamoDB's attribute-value form), parsed. */
export function notificationFromStreamImage(image: Parameters<typeof unmarshall>[0]): NotificationRecord {
  return parseItem(NotificationRecord, notificationEntity, unmarshall(image));
}

/** Keys one counting Query reads at most: the listing's time is checked between them. */
const countPageKeys = 2_500;

/**
 * Skips `count` of a customer's notifications of a source in the listing's order, counting
 * without answering them: where the page after them starts, undefined when nothing is left; false
 * when `until` came first (notifications expire and are acknowledged, so their positions move and
 * a deep offset is counted, not looked up: docs/performance.md).
 */
export async function skipNotifications(
  customer: string,
  source: NotificationSource,
  count: number,
  ascending: boolean,
  until?: number,
): Promise<Record<string, unknown> | undefined | false> {
  const along = await countAlong(customer, source, count, ascending, until);
  if (along === false) return false;
  return along.counted === count ? along.next : undefined;
}

/**
 * Gives a notification written before retention its `expiresAt` (the migration), unless it has one
 * or is gone: false then.
 */
export async function setNotificationExpiry(n: NotificationRecord): Promise<boolean> {
  const item = notificationItem(n);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.notificationById(n.customer, n.id),
        UpdateExpression: 'SET expiresAt = :expires',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(expiresAt)',
        ExpressionAttributeValues: { ':expires': item.expiresAt },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { NotificationRecord } from '../../model/notification.ts';
import { db } from '../client.ts';
import { getItem, parseItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { TransactItem } from '../transactions.ts';

/**
 * A customer's notifications (shared/model/notification.ts). Each is written by the transaction of
 * the state change it reports (`notificationWrites`, the outbox), and read, marked read and
 * acknowledged here. The poll queue is gsi1 (unacknowledged only, oldest first), the listing gsi2
 * (every notification, by fire date).
 */

export const notificationEntity = 'notification';

export function notificationItem(n: NotificationRecord): Record<string, unknown> {
  return toItem(keys.notification(n.customer, n.id, n.fireDate, n.acknowledgeDate === undefined), notificationEntity, n);
}

/**
 * The transaction items writing these notifications, for the repository that records the change
 * they report (added after its own items, so the positions its cancellation reasons are read at
 * do not move). A plain Put without a condition: the id is the change's own (model/notification.ts),
 * so a transaction written again writes the same notification, and a condition here could never
 * be what cancels it.
 */
export function notificationWrites(...notifications: (NotificationRecord | undefined)[]): TransactItem[] {
  return notifications
    .filter((n): n is NotificationRecord => n !== undefined)
    .map((n) => ({ Put: { TableName: tableName(), Item: notificationItem(n) } }));
}

/** A notification that reports no state change of the service's (a retrieve from a zone's master that failed), written alone. */
export async function putNotification(n: NotificationRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: notificationItem(n) }));
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
 * Acknowledges a notification: `acknowledgeDate` (and `readDate`) set the first time, and it
 * leaves the poll queue (its gsi1 keys go). Undefined when the customer has no such notification.
 */
export async function acknowledgeNotification(customer: string, id: number, at: string): Promise<NotificationRecord | undefined> {
  return stamp(
    customer,
    id,
    'SET acknowledgeDate = if_not_exists(acknowledgeDate, :at), readDate = if_not_exists(readDate, :at) REMOVE gsi1pk, gsi1sk',
    at,
  );
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
 * start (undefined when none is left).
 */
async function countAlong(
  customer: string,
  source: NotificationSource,
  upTo: number,
  ascending: boolean,
): Promise<{ counted: number; next: Record<string, unknown> | undefined }> {
  let counted = 0;
  let next: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...sourceQuery(customer, source),
        IndexName: keysOnly[source],
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: Math.max(1, upTo - counted),
        ...(next ? { ExclusiveStartKey: next } : {}),
      }),
    );
    counted += out.Count ?? 0;
    next = out.LastEvaluatedKey;
  } while (counted < upTo && next);
  return { counted, next };
}

/**
 * Counts a customer's notifications of a source, reading at most `max`; `complete` false when
 * there were more.
 */
export async function countNotifications(
  customer: string,
  source: NotificationSource,
  max: number,
): Promise<{ count: number; complete: boolean }> {
  const { counted } = await countAlong(customer, source, max + 1, false);
  return { count: counted, complete: counted <= max };
}

/** A notification from a stream record's image (DynamoDB's attribute-value form), parsed. */
export function notificationFromStreamImage(image: Parameters<typeof unmarshall>[0]): NotificationRecord {
  return parseItem(NotificationRecord, notificationEntity, unmarshall(image));
}

/**
 * Skips `count` of a customer's notifications of a source in the listing's order, counting
 * without answering them: where the page after them starts, undefined when nothing is left.
 */
export async function skipNotifications(
  customer: string,
  source: NotificationSource,
  count: number,
  ascending: boolean,
): Promise<Record<string, unknown> | undefined> {
  const { counted, next } = await countAlong(customer, source, count, ascending);
  return counted === count ? next : undefined;
}

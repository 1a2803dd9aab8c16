import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { WebhookDeadLetter, WebhookDelivery } from '../../model/webhook.ts';
import { db } from '../client.ts';
import { listGsi1Range, parseItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, transact } from '../transactions.ts';

/**
 * The webhook retry lane (shared/model/webhook.ts `WebhookDelivery`) and dead letters, in the
 * customer's webhook partition; due deliveries are listed through gsi1 by due time.
 */

const deliveryEntity = 'webhookDelivery';
const deadLetterEntity = 'webhookDeadLetter';

function deliveryItem(d: WebhookDelivery): Record<string, unknown> {
  return toItem(keys.webhookDelivery(d.customer, d.notificationId, d.dueDate), deliveryEntity, d);
}

/** Puts a delivery into the retry lane unless one for the notification waits already (a replayed stream record); false then. */
export async function enqueueDelivery(d: WebhookDelivery): Promise<boolean> {
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** The due date of the customer's oldest waiting delivery, or undefined when none waits (one Query of one item). */
export async function firstWaitingDelivery(customer: string): Promise<WebhookDelivery | undefined> {
  const k = keys.webhookDeliveries(customer);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': k.pk, ':prefix': k.skPrefix },
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const item = out.Items?.[0];
  return item && parseItem(WebhookDelivery, deliveryEntity, item);
}

/** Deliveries due at `at`, oldest due first, at most `limit` (the rest wait for the next run). */
export function listDueDeliveries(at: string, limit: number): Promise<WebhookDelivery[]> {
  return listGsi1Range(keys.webhookDeliveriesDue(at), limit, WebhookDelivery, deliveryEntity);
}

/**
 * Takes a delivery for one attempt: it must still wait with the attempts read, and no other run
 * may hold it (`leaseUntil` passed). False when another run took it first.
 */
export async function claimDelivery(d: WebhookDelivery, at: string, leaseUntil: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDelivery(d.customer, d.notificationId),
        UpdateExpression: 'SET leaseUntil = :lease',
        ConditionExpression: 'attempts = :attempts AND (attribute_not_exists(leaseUntil) OR leaseUntil < :at)',
        ExpressionAttributeValues: { ':lease': leaseUntil, ':attempts': d.attempts, ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Reschedules a delivery after a failed attempt (its place in the due index moves with it). */
export async function rescheduleDelivery(d: WebhookDelivery): Promise<void> {
  const { leaseUntil: _, ...rest } = d;
  await db().send(new PutCommand({ TableName: tableName(), Item: deliveryItem(rest) }));
}

/** Removes a delivery from the retry lane (delivered, or dead). */
export async function removeDelivery(customer: string, notificationId: number): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.webhookDelivery(customer, notificationId) }));
}

export async function putDeadLetter(d: WebhookDeadLetter): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: toItem(keys.webhookDeadLetter(d.customer, d.notificationId), deadLetterEntity, d) }),
  );
}

/** A customer's dead letters, oldest notification first (at most `limit`). */
export async function listDeadLetters(customer: string, limit: number): Promise<WebhookDeadLetter[]> {
  const k = keys.webhookDeadLetters(customer);
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': k.pk, ':prefix': k.skPrefix },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => parseItem(WebhookDeadLetter, deadLetterEntity, item));
}

/** Moves a dead letter back into the retry lane, due at once, in one transaction; false when there is no such dead letter. */
export async function redeliverDeadLetter(customer: string, notificationId: number, at: string): Promise<boolean> {
  try {
    await transact([
      {
        Delete: {
          TableName: tableName(),
          Key: keys.webhookDeadLetter(customer, notificationId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Put: { TableName: tableName(), Item: deliveryItem({ customer, notificationId, attempts: 0, dueDate: at }) } },
    ]);
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

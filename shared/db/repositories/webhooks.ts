import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type StoredWebhookSecret, WebhookRecord } from '../../model/webhook.ts';
import { db } from '../client.ts';
import { getItem, parseItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/** A customer's webhook endpoint (shared/model/webhook.ts): one item in the customer's webhook partition. */

export const webhookEntity = 'webhook';

export function getWebhook(customer: string, consistent = true): Promise<WebhookRecord | undefined> {
  return getItem(keys.webhook(customer), WebhookRecord, webhookEntity, consistent);
}

/**
 * Registers the endpoint, or moves an existing one to a new URL (enabled again, its secrets kept),
 * in one conditional-free update: `created` says whether it was new, and so whether `secret` (kept
 * only by a new one) is the endpoint's.
 */
export async function putWebhook(
  customer: string,
  url: string,
  secret: StoredWebhookSecret,
  at: string,
): Promise<{ webhook: WebhookRecord; created: boolean }> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.webhook(customer),
      UpdateExpression:
        'SET #url = :url, #status = :enabled, updatedDate = :at, customer = :customer, entity = :entity, secrets = if_not_exists(secrets, :secrets), createdDate = if_not_exists(createdDate, :at), version = if_not_exists(version, :one) REMOVE disabledReason',
      ExpressionAttributeNames: { '#url': 'url', '#status': 'status' },
      ExpressionAttributeValues: {
        ':url': url,
        ':enabled': 'ENABLED',
        ':at': at,
        ':customer': customer,
        ':entity': webhookEntity,
        ':secrets': [secret],
        ':one': 1,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const webhook = parseItem(WebhookRecord, webhookEntity, out.Attributes ?? {});
  return { webhook, created: webhook.secrets[0]?.sealed !== undefined && webhook.secrets[0]?.sealed === secret.sealed };
}

/** Replaces the secrets, unless they changed since `version` was read; false then. */
export async function replaceWebhookSecrets(
  customer: string,
  secrets: StoredWebhookSecret[],
  version: number,
  at: string,
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(customer),
        UpdateExpression: 'SET secrets = :secrets, version = :next, updatedDate = :at',
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':secrets': secrets, ':next': version + 1, ':version': version, ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Removes the endpoint; false when there was none. */
export async function deleteWebhook(customer: string): Promise<boolean> {
  try {
    await db().send(
      new DeleteCommand({ TableName: tableName(), Key: keys.webhook(customer), ConditionExpression: 'attribute_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Records a delivery's outcome on the endpoint (and, with `disable`, stops deliveries: a 410). Nothing when it is gone. */
export async function recordWebhookOutcome(
  customer: string,
  outcome: { delivered: true; at: string } | { delivered: false; at: string; failure: string; disable?: boolean },
): Promise<void> {
  const update = outcome.delivered
    ? { expr: 'SET lastDeliveryDate = :at', values: { ':at': outcome.at } }
    : {
        expr: `SET lastFailureDate = :at, lastFailure = :failure${outcome.disable ? ', #status = :disabled, disabledReason = :failure' : ''}`,
        values: { ':at': outcome.at, ':failure': outcome.failure, ...(outcome.disable ? { ':disabled': 'DISABLED' } : {}) },
      };
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhook(customer),
        UpdateExpression: update.expr,
        ConditionExpression: 'attribute_exists(pk)',
        ...(outcome.delivered || !outcome.disable ? {} : { ExpressionAttributeNames: { '#status': 'status' } }),
        ExpressionAttributeValues: update.values,
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

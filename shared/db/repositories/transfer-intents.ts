import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { WireTime } from '../../schemas/primitives.ts';
import { db } from '../client.ts';
import { listGsi1Range, listPartition, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'transferIntent';

/**
 * A transfer about to be submitted to an upstream registry account: the name, who asked, when,
 * and a salted digest of what was asked (the auth code and the period), never the auth code
 * itself. Intents written before the digest existed carry none and are never adopted.
 */
export const TransferIntent = v.object({
  domainName: v.string(),
  customer: v.string(),
  requestedDate: WireTime,
  salt: v.optional(v.string()),
  requestDigest: v.optional(v.string()),
});
export type TransferIntent = v.InferOutput<typeof TransferIntent>;

/** Intents are dropped by the table's TTL a week after they were written, whatever became of them. */
const keepSeconds = 7 * 86_400;

/** Records the intent (one PutItem), before the upstream is asked. */
export async function recordTransferIntent(intent: TransferIntent): Promise<void> {
  const expiresAt = Math.floor(Date.parse(intent.requestedDate) / 1000) + keepSeconds;
  await putItem({ ...toItem(keys.transferIntent(intent.domainName, intent.requestedDate, intent.customer), entity, intent), expiresAt });
}

/** Intents requested at or before `at`, oldest first: one gsi1 Query page of at most `limit`. */
export function listTransferIntents(at: string, limit = 50): Promise<TransferIntent[]> {
  return listGsi1Range(keys.transferIntentsBefore(at), limit, TransferIntent, entity);
}

/** The intents of one name not settled yet, oldest first (one Query of the name's partition: a handful at most). */
export function listTransferIntentsOf(domainName: string): Promise<TransferIntent[]> {
  return listPartition(keys.transferIntentsOf(domainName), TransferIntent, entity);
}

/** Forgets an intent once it is settled (one DeleteItem; an intent already gone is fine). */
export async function clearTransferIntent(intent: Pick<TransferIntent, 'domainName' | 'requestedDate' | 'customer'>): Promise<void> {
  const { pk, sk } = keys.transferIntent(intent.domainName, intent.requestedDate, intent.customer);
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk } }));
}

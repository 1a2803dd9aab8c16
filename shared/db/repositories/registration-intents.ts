import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { WireTime } from '../../schemas/primitives.ts';
import { db } from '../client.ts';
import { listGsi1Range, listPartition, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

const entity = 'registrationIntent';

/**
 * A registration about to be submitted to the registry: the name, who asked (customer and user),
 * when, the period, the premium price the registry quoted (a premium name), and the request's
 * body as the use case read it, without its auth code (never stored). Written before the registry
 * is asked, so that a registration whose answer was lost is adopted by the customer whose request
 * explains it (a retry, or the poller when none comes), never by anyone else.
 */
export const RegistrationIntent = v.object({
  domainName: v.string(),
  customer: v.string(),
  user: v.string(),
  requestedDate: WireTime,
  periodMonths: v.number(),
  premium: v.optional(v.object({ currency: v.picklist(['EUR', 'USD']), amount: v.number() })),
  body: v.record(v.string(), v.unknown()),
});
export type RegistrationIntent = v.InferOutput<typeof RegistrationIntent>;

/** Intents are dropped by the table's TTL a week after they were written, whatever became of them. */
const keepSeconds = 7 * 86_400;

/** Records the intent (one PutItem), before the registry is asked. */
export async function recordRegistrationIntent(intent: RegistrationIntent): Promise<void> {
  const expiresAt = Math.floor(Date.parse(intent.requestedDate) / 1000) + keepSeconds;
  await putItem({
    ...toItem(keys.registrationIntent(intent.domainName, intent.requestedDate, intent.customer), entity, intent),
    expiresAt,
  });
}

/** Intents requested at or before `at`, oldest first: one gsi1 Query page of at most `limit`. */
export function listRegistrationIntents(at: string, limit = 50): Promise<RegistrationIntent[]> {
  return listGsi1Range(keys.registrationIntentsBefore(at), limit, RegistrationIntent, entity);
}

/** The intents of one name not settled yet, oldest first (one Query of the name's partition: a handful at most). */
export function listRegistrationIntentsOf(domainName: string): Promise<RegistrationIntent[]> {
  return listPartition(keys.registrationIntentsOf(domainName), RegistrationIntent, entity);
}

/** Forgets an intent once it is settled (one DeleteItem; an intent already gone is fine). */
export async function clearRegistrationIntent(
  intent: Pick<RegistrationIntent, 'domainName' | 'requestedDate' | 'customer'>,
): Promise<void> {
  const { pk, sk } = keys.registrationIntent(intent.domainName, intent.requestedDate, intent.customer);
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk } }));
}

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { WireTime } from '../../schemas/primitives.ts';
import { db } from '../client.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * The service's ACME accounts, one per ACME directory (an authority and validation level). The
 * account key is made here once and kept in this item: the first writer wins (a conditional put),
 * so two functions starting at once register one account. Its URL is stored once registered and
 * reused ever after: a CA that refuses a second registration with the same External Account
 * Binding never sees one. The key is a secret: it is never logged or answered.
 */

const entity = 'acmeAccount';

export const AcmeAccount = v.object({
  directoryUrl: v.string(),
  /** The account's private key (PEM). */
  accountKey: v.string(),
  /** The account URL the CA answered on registration; absent until registered. */
  accountUrl: v.optional(v.string()),
  createdDate: WireTime,
});
export type AcmeAccount = v.InferOutput<typeof AcmeAccount>;

/** The account kept for a directory (by its id, a digest of the URL), if any; consistent, as a registration follows. */
export function getAcmeAccount(id: string): Promise<AcmeAccount | undefined> {
  return getItem(keys.acmeAccount(id), AcmeAccount, entity, true);
}

/** Keeps the account (with its key) unless one is kept already; answers the one kept. */
export async function claimAcmeAccount(id: string, account: AcmeAccount): Promise<AcmeAccount> {
  if (await putItem(toItem(keys.acmeAccount(id), entity, account), true)) return account;
  const kept = await getAcmeAccount(id);
  if (!kept) throw new Error(`The ACME account ${id} vanished while it was claimed`);
  return kept;
}

/** Records the account URL the CA answered for the kept key. */
export async function recordAcmeAccountUrl(id: string, accountUrl: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.acmeAccount(id),
      UpdateExpression: 'SET accountUrl = :url',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':url': accountUrl },
    }),
  );
}

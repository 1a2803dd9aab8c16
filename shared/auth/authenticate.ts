import { getApiKey } from '../db/repositories/api-keys.ts';
import { hashApiKey, parseAuthorization, sameHash } from './api-keys.ts';
import type { Principal } from './principal.ts';

/**
 * The API-key check (contract section 1): the deployed authorizer and the local gateway both run
 * exactly this. Undefined for a missing, malformed or unknown key; the key itself is never logged.
 */
export async function authenticate(authorization: string | undefined): Promise<Principal | undefined> {
  const key = parseAuthorization(authorization);
  if (!key) return undefined;
  const hash = hashApiKey(key);
  const record = await getApiKey(hash);
  if (!record || !sameHash(record.keyHash, hash)) return undefined;
  return { customer: record.customer, user: record.user, permissions: record.permissions };
}

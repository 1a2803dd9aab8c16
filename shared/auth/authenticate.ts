import { getApiKey } from '../db/repositories/api-keys.ts';
import { hashApiKey, parseAuthorization, sameHash, usageIdentifier } from './api-keys.ts';
import type { Principal } from './principal.ts';

/** A caller and the key it used, as the authorizer hands them on. */
export interface Authenticated {
  principal: Principal;
  /** The key's API Gateway usage-plan key value (per-key throttling and quota). */
  usageIdentifier: string;
}

/** How long an unknown key is remembered as unknown (seconds), and how many are remembered at most. */
export const unknownKeyCacheSeconds = 60;
const unknownKeyCacheSize = 10_000;

// Hashes of keys the table did not know, with when that stops being trusted. A caller repeating a
// wrong key costs a hash, not a read; a key created meanwhile works at the latest after the TTL.
const unknownKeys = new Map<string, number>();

function knownUnknown(hash: string, now: number): boolean {
  const until = unknownKeys.get(hash);
  if (until === undefined) return false;
  if (until > now) return true;
  unknownKeys.delete(hash);
  return false;
}

function rememberUnknown(hash: string, now: number): void {
  unknownKeys.delete(hash);
  unknownKeys.set(hash, now + unknownKeyCacheSeconds * 1000);
  // A Map iterates in insertion order: drop the oldest when full.
  if (unknownKeys.size > unknownKeyCacheSize) unknownKeys.delete(unknownKeys.keys().next().value as string);
}

/**
 * The API-key check (contract section 1): the deployed authorizer and the local gateway both run
 * exactly this. Undefined for a missing, malformed or unknown key; the key itself is never logged.
 */
export async function authenticateKey(authorization: string | undefined): Promise<Authenticated | undefined> {
  const key = parseAuthorization(authorization);
  if (!key) return undefined;
  const hash = hashApiKey(key);
  const now = Date.now();
  if (knownUnknown(hash, now)) return undefined;
  const record = await getApiKey(hash);
  if (!record || !sameHash(record.keyHash, hash)) {
    rememberUnknown(hash, now);
    return undefined;
  }
  return {
    principal: { customer: record.customer, user: record.user, permissions: record.permissions },
    usageIdentifier: usageIdentifier(record.keyHash),
  };
}

/** The caller of an `Authorization` header, or undefined (see authenticateKey). */
export async function authenticate(authorization: string | undefined): Promise<Principal | undefined> {
  return (await authenticateKey(authorization))?.principal;
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API keys are stored only as this hash (hex SHA-256); the clear key is shown once, at creation. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * The header's shape: the scheme `ApiKey` in any case (RFC 9110 11.1: an auth-scheme is
 * case-insensitive), one or more spaces, the key. Spelled out letter by letter rather than with a
 * flag: API Gateway's token validation regex uses the same source, so malformed headers are
 * refused before any function runs. Linear: the space and the key's characters are disjoint.
 */
export const apiKeyHeaderPattern = /^[Aa][Pp][Ii][Kk][Ee][Yy] +[A-Za-z0-9._~+/=-]{1,256}$/;
const header = /^[Aa][Pp][Ii][Kk][Ee][Yy] +([A-Za-z0-9._~+/=-]{1,256})$/;

/** The key from an `Authorization: ApiKey <key>` header, or undefined when missing or malformed. */
export function parseAuthorization(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return header.exec(value)?.[1];
}

/**
 * The key's counterpart in API Gateway (its usage-plan API key value), derived from the stored
 * hash, so the authorizer can name it (`usageIdentifierKey`) without storing anything more and the
 * operator can register existing keys. Derived, not the hash itself, so API Gateway never holds the
 * table's lookup key.
 */
export function usageIdentifier(keyHash: string): string {
  return createHash('sha256').update(`usage-plan\n${keyHash}`, 'utf8').digest('hex');
}

/** A fresh key: 32 random bytes, base64url, with a prefix that makes leaked keys easy to grep for. */
export function generateApiKey(): string {
  return `rrk_${randomBytes(32).toString('base64url')}`;
}

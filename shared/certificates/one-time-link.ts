import { createHmac, timingSafeEqual } from 'node:crypto';
import { requireSecret, secretValue } from '../aws/secrets.ts';
import { recordOneTimeLinkUse } from '../db/repositories/one-time-links.ts';

/**
 * One-time links to an authority's validation manager (spec 2.9 `oneTimeLink`): the URL carries a
 * token `<payload>.<signature>`, HMAC-SHA256 signed with a secret, expiring, and accepted once.
 *
 * Environment:
 * - `VALIDATION_MANAGER_URL`: the page the link leads to (default: the sandbox's own URL below;
 *   deployed, the stack sets it from the stage file's `validationManagerUrl`).
 * - `ONE_TIME_LINK_SECRET_ARN`: where the HMAC secret is (Secrets Manager, read at run time and
 *   cached: shared/aws/secrets.ts); the local sandbox sets `ONE_TIME_LINK_SECRET` itself. At least
 *   32 characters. Neither set: the function refuses to start; there is no default secret.
 * - `ONE_TIME_LINK_TTL_SECONDS`: lifetime of a link (default 86400).
 */

export const defaultValidationManagerUrl = 'https://validation-manager.sandbox.invalid/validate';
const defaultTtlSeconds = 24 * 60 * 60;

export class OneTimeLinkRejected extends Error {}

requireSecret('ONE_TIME_LINK_SECRET');

async function secret(): Promise<string> {
  const value = await secretValue('ONE_TIME_LINK_SECRET');
  if (value.length < 32) throw new Error('ONE_TIME_LINK_SECRET must be at least 32 characters long');
  return value;
}

function ttlSeconds(): number {
  const raw = Number(process.env.ONE_TIME_LINK_TTL_SECONDS);
  return Number.isInteger(raw) && raw > 0 ? raw : defaultTtlSeconds;
}

async function sign(payload: string): Promise<string> {
  return createHmac('sha256', await secret())
    .update(payload)
    .digest('base64url');
}

interface LinkPayload {
  /** process id */
  p: number;
  /** authority */
  a: string;
  /** expiry, epoch seconds */
  e: number;
  /** nonce: the link's identity for its single use */
  n: string;
}

/**
 * The link for a process at an authority. Deterministic within a lifetime window (so repeated
 * reads of the process answer the same link and the same ETag); a new window gives a new link.
 */
export async function oneTimeLink(processId: number, authority: string, now: Date): Promise<string> {
  const ttl = ttlSeconds();
  const window = Math.floor(now.getTime() / 1000 / ttl);
  // Valid for the rest of this window plus one more, so a link never expires moments after issue.
  const expires = (window + 2) * ttl;
  const nonce = createHmac('sha256', await secret())
    .update(`${processId}:${authority}:${window}`)
    .digest('base64url')
    .slice(0, 22);
  const payload = Buffer.from(JSON.stringify({ p: processId, a: authority, e: expires, n: nonce } satisfies LinkPayload)).toString(
    'base64url',
  );
  const url = new URL(process.env.VALIDATION_MANAGER_URL || defaultValidationManagerUrl);
  url.searchParams.set('token', `${payload}.${await sign(payload)}`);
  return url.toString();
}

/**
 * Accepts a link's token once: checks the signature and expiry, then records the use with a
 * conditional write (a second use, even concurrent, is refused). Returns the process and authority.
 */
export async function redeemOneTimeLink(token: string, now: Date): Promise<{ processId: number; authority: string }> {
  const [payload, signature] = token.split('.');
  if (!payload || !signature) throw new OneTimeLinkRejected('malformed link');
  const expected = Buffer.from(await sign(payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new OneTimeLinkRejected('invalid signature');
  let data: LinkPayload;
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkPayload;
  } catch {
    throw new OneTimeLinkRejected('malformed link');
  }
  if (data.e <= Math.floor(now.getTime() / 1000)) throw new OneTimeLinkRejected('link expired');
  const first = await recordOneTimeLinkUse(data.n, data.p, now, data.e);
  if (!first) throw new OneTimeLinkRejected('link already used');
  return { processId: data.p, authority: data.a };
}

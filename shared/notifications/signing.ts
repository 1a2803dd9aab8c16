import { createHmac } from 'node:crypto';

/**
 * The signatures of a webhook delivery:
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`,
 *   `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under the secret's key (the bytes the
 *   base64 after `whsec_` encodes), one space-separated signature per secret that signs (two
 *   during a rotation);
 * - the real API's `Signature`: the base64 HMAC-SHA256 of the raw body, under the current secret
 *   as written (`whsec_...`, UTF-8), so receivers written for the real API keep working.
 */

const prefix = 'whsec_';

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, 'base64');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function realApiSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('base64');
}

/** The headers signing `body`; `secrets` newest first (the first is the current one). */
export function signatureHeaders(id: string, timestamp: number, body: string, secrets: readonly string[]): Record<string, string> {
  const current = secrets[0];
  if (current === undefined) throw new Error('A webhook delivery needs a signing secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' '),
    Signature: realApiSignature(current, body),
  };
}

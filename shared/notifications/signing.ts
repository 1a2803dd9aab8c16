import { createHmac } from 'node:crypto';

/**
 * The signatures of a webhook delivery:
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`,
 *   `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under the secret's key (the bytes the
 *   base64 after `whsec_` encodes), one space-separated signature per secret that signs (two
 *   during a rotation);
 * - the real API's `Signature`: the base64 HMAC-SHA256 of the raw body, under a secret as written
 *   (`whsec_...`, UTF-8), so receivers written for the real API keep working. Its format holds one
 *   signature: during a rotation's overlap it is made with the previous secret (the one the
 *   receiver already holds), and with the new one from the end of the overlap, so a receiver of it
 *   does not break at the moment of rotation (docs/notifications.md, "The request"); it carries no
 *   timestamp, so it cannot refuse a replay.
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

/**
 * The headers signing `body`; `secrets` newest first, those that sign now (the current one, and the
 * previous one through a rotation's overlap).
 */
export function signatureHeaders(id: string, timestamp: number, body: string, secrets: readonly string[]): Record<string, string> {
  // The oldest secret that still signs: the previous one during an overlap, else the current one.
  const held = secrets.at(-1);
  if (held === undefined) throw new Error('A webhook delivery needs a signing secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, id, timestamp, body)).join(' '),
    Signature: realApiSignature(held, body),
  };
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type DataKeyContext, newDataKey, openDataKey } from '../aws/data-keys.ts';
import type { StoredWebhookSecret, WebhookSecret } from '../model/webhook.ts';

/**
 * Webhook signing secrets, sealed for the table (envelope encryption: docs/security.md): each
 * secret is encrypted with AES-256-GCM under a data key of its own, and the data key is stored
 * wrapped by the stack's KMS key (locally, the local key: shared/aws/data-keys.ts), with the
 * customer as the encryption context and the additional data, so a sealed secret copied to
 * another customer's endpoint does not open. Stored form: `v1.<wrapped data key>|<iv>.<ciphertext+tag>`.
 * A secret stored before sealing (`secret` in the item) is read as it is until
 * `npm run admin -- migrate` seals it.
 */

const version = 'v1';
const contextOf = (customer: string): DataKeyContext => ({ customer, purpose: 'webhook-secret' });

/** Seals a secret for a customer's endpoint. */
export async function sealSecret(customer: string, secret: WebhookSecret): Promise<StoredWebhookSecret> {
  const key = await newDataKey(contextOf(customer));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.plain, iv).setAAD(Buffer.from(customer, 'utf8'));
  const body = Buffer.concat([cipher.update(secret.secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  const { secret: _plain, ...dates } = secret;
  return { ...dates, sealed: `${version}.${key.wrapped}|${iv.toString('base64')}.${body.toString('base64')}` };
}

/** Opens a stored secret of a customer's endpoint (a secret stored before sealing is answered as it is). */
export async function openSecret(customer: string, stored: StoredWebhookSecret): Promise<WebhookSecret> {
  const { sealed, secret, ...dates } = stored;
  if (sealed === undefined) {
    if (secret === undefined) throw new Error('A stored webhook secret with neither a sealed nor a plain value');
    return { ...dates, secret };
  }
  const [head, payload] = sealed.split('|');
  if (!head?.startsWith(`${version}.`) || payload === undefined) throw new Error('A sealed webhook secret of an unknown version');
  const plainKey = await openDataKey(head.slice(version.length + 1), contextOf(customer));
  const [iv, body] = payload.split('.');
  const data = Buffer.from(body ?? '', 'base64');
  const decipher = createDecipheriv('aes-256-gcm', plainKey, Buffer.from(iv ?? '', 'base64')).setAAD(Buffer.from(customer, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return { ...dates, secret: Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8') };
}

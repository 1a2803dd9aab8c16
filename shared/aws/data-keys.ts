import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';

/**
 * Data keys for envelope encryption (docs/security.md, "Webhook secrets, sealed"): a fresh 256-bit
 * data key per sealed value, kept only in its wrapped form beside it.
 *
 * - Deployed, `WEBHOOK_SECRETS_KMS_KEY_ID` names the stack's KMS key: a data key is made by
 *   `kms:GenerateDataKey` and opened by `kms:Decrypt`, both under an encryption context (the
 *   customer), so a wrapped key moved to another customer's item does not open.
 * - Locally (`npm start`, the tests), `WEBHOOK_SECRETS_LOCAL_KEY` holds a 256-bit key (base64),
 *   which `npm start` keeps in its data dir: a data key is wrapped with AES-256-GCM under it, the
 *   context as additional data.
 *
 * Neither set: sealing and opening refuse (a function never falls back to storing plaintext).
 * Opened data keys are kept in memory per container (at most 256), so a delivery does not call KMS
 * for a secret it opened before.
 */

export type DataKeyContext = Record<string, string>;

export interface DataKey {
  plain: Buffer;
  /** The data key as stored: `kms` (a KMS ciphertext blob) or `local` (iv, ciphertext and tag). */
  wrapped: string;
}

let client: KMSClient | undefined;

/** The KMS client (tests answer and inject faults at it). */
export function kmsClient(): KMSClient {
  client ??= new KMSClient({});
  return client;
}

/** Replaces the KMS client (undefined: a fresh one on next use). */
export function setKmsClient(next: KMSClient | undefined): void {
  client = next;
}

const opened = new Map<string, Buffer>();
const openedLimit = 256;

/** An opened data key is remembered under its wrapped form and the context it opens with (never for another context). */
const cacheKeyOf = (wrapped: string, context: DataKeyContext) => `${JSON.stringify(Object.entries(context).sort())}|${wrapped}`;

function remember(cacheKey: string, plain: Buffer): void {
  if (opened.size >= openedLimit) opened.delete(opened.keys().next().value as string);
  opened.set(cacheKey, plain);
}

function localKey(): Buffer | undefined {
  const value = process.env.WEBHOOK_SECRETS_LOCAL_KEY;
  if (!value) return undefined;
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRETS_LOCAL_KEY must be 32 bytes, base64');
  return key;
}

function kmsKeyId(): string | undefined {
  return process.env.WEBHOOK_SECRETS_KMS_KEY_ID || undefined;
}

/** Throws unless a key to wrap data keys with is configured (deployed: the KMS key; locally: the local key). */
export function requireDataKeys(): void {
  if (!kmsKeyId() && !localKey()) {
    throw new Error(
      'WEBHOOK_SECRETS_KMS_KEY_ID is not set: webhook secrets are sealed under the stack key (the local sandbox sets WEBHOOK_SECRETS_LOCAL_KEY)',
    );
  }
}

const contextData = (context: DataKeyContext) =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))), 'utf8');

/** A fresh data key, and its wrapped form. */
export async function newDataKey(context: DataKeyContext): Promise<DataKey> {
  const keyId = kmsKeyId();
  if (keyId) {
    const out = await kmsClient().send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS answered GenerateDataKey without a key');
    const plain = Buffer.from(out.Plaintext);
    const wrapped = `kms.${Buffer.from(out.CiphertextBlob).toString('base64')}`;
    remember(cacheKeyOf(wrapped, context), plain);
    return { plain, wrapped };
  }
  const local = localKey();
  if (!local) throw new Error('No key to seal webhook secrets with (WEBHOOK_SECRETS_KMS_KEY_ID or WEBHOOK_SECRETS_LOCAL_KEY)');
  const plain = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', local, iv).setAAD(contextData(context));
  const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { plain, wrapped: `local.${iv.toString('base64')}.${body.toString('base64')}` };
}

/** Opens a wrapped data key under the same context it was made with; throws when it does not open. */
export async function openDataKey(wrapped: string, context: DataKeyContext): Promise<Buffer> {
  const cacheKey = cacheKeyOf(wrapped, context);
  const known = opened.get(cacheKey);
  if (known) return known;
  let plain: Buffer;
  if (wrapped.startsWith('kms.')) {
    const out = await kmsClient().send(
      new DecryptCommand({
        CiphertextBlob: Buffer.from(wrapped.slice('kms.'.length), 'base64'),
        EncryptionContext: context,
        ...(kmsKeyId() ? { KeyId: kmsKeyId() } : {}),
      }),
    );
    if (!out.Plaintext) throw new Error('KMS answered Decrypt without a key');
    plain = Buffer.from(out.Plaintext);
  } else if (wrapped.startsWith('local.')) {
    const local = localKey();
    if (!local) throw new Error('A webhook secret sealed under the local key, and WEBHOOK_SECRETS_LOCAL_KEY is not set');
    const [, iv, body] = wrapped.split('.');
    const data = Buffer.from(body ?? '', 'base64');
    const decipher = createDecipheriv('aes-256-gcm', local, Buffer.from(iv ?? '', 'base64')).setAAD(contextData(context));
    decipher.setAuthTag(data.subarray(data.length - 16));
    plain = Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
  } else {
    throw new Error('A wrapped data key of an unknown kind');
  }
  remember(cacheKey, plain);
  return plain;
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { migrateTable } from '../infra/migrate.ts';
import { setKmsClient } from '../shared/aws/data-keys.ts';
import { db } from '../shared/db/client.ts';
import { keys } from '../shared/db/keys.ts';
import { getWebhook } from '../shared/db/repositories/webhooks.ts';
import { tableName } from '../shared/db/table.ts';
import { openSecret, sealSecret } from '../shared/notifications/secret-box.ts';
import { realApiSignature, signatureHeaders, standardSignature } from '../shared/notifications/signing.ts';
import { call, otherKey } from './support/api.ts';

/**
 * Webhook signing secrets are stored sealed (envelope encryption: a data key per secret, wrapped by
 * the stack's KMS key deployed and by the local key here), open only for their customer, are sealed
 * by the migration when stored in the clear, and the real API's `Signature` keeps the overlap its
 * format allows.
 */

const hook = '/v2/customers/demo/webhook';

async function rawItem(customer: string): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: keys.webhook(customer), ConsistentRead: true }))).Item;
}

/** The key bytes a `whsec_` secret carries, and the secret as given: neither may be found in the item. */
function traces(secret: string): string[] {
  const key = secret.slice('whsec_'.length);
  return [secret, key, Buffer.from(key, 'base64').toString('hex'), Buffer.from(secret).toString('base64')];
}

describe('webhook secrets, sealed in the table', () => {
  it('stores no secret readable in the item, after registration and after a rotation; each still opens to what was answered', async () => {
    await call('DELETE', hook);
    const first = (await call('PUT', hook, { body: { url: 'https://hooks.example.net/sealed' } })).body.secret as string;
    expect(first).toMatch(/^whsec_/);
    let item = JSON.stringify(await rawItem('demo'));
    for (const t of traces(first)) expect(item).not.toContain(t);
    expect(item).not.toContain('whsec_');
    const rotated = (await call('POST', `${hook}/rotate`)).body.secret as string;
    item = JSON.stringify(await rawItem('demo'));
    for (const t of [...traces(first), ...traces(rotated)]) expect(item).not.toContain(t);
    const stored = await getWebhook('demo');
    expect(stored?.secrets.every((s) => s.sealed !== undefined && s.secret === undefined)).toBe(true);
    const opened = await Promise.all((stored?.secrets ?? []).map((s) => openSecret('demo', s)));
    expect(opened.map((s) => s.secret)).toEqual([rotated, first]);
  });

  it("does not open a sealed secret moved to another customer's endpoint", async () => {
    const stored = await getWebhook('demo');
    const sealed = stored?.secrets[0];
    expect(sealed?.sealed).toBeDefined();
    await expect(openSecret('other', sealed as never)).rejects.toThrow();
  });

  it('migrates a secret stored in the clear: sealed by npm run admin -- migrate, the same secret, and nothing left to do after', async () => {
    await call('DELETE', '/v2/customers/other/webhook', { key: otherKey });
    const plain = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhook('other'),
          entity: 'webhook',
          customer: 'other',
          url: 'https://hooks.example.net/legacy',
          status: 'ENABLED',
          secrets: [{ secret: plain, createdDate: '2026-01-01T00:00:00Z' }],
          createdDate: '2026-01-01T00:00:00Z',
          updatedDate: '2026-01-01T00:00:00Z',
          version: 1,
        },
      }),
    );
    const dry = await migrateTable({ dryRun: true });
    expect(dry.webhooksPlain).toBe(1);
    expect(JSON.stringify(await rawItem('other'))).toContain(plain);
    const report = await migrateTable();
    expect(report).toMatchObject({ webhooksPlain: 1, webhooksSealed: 1 });
    const item = JSON.stringify(await rawItem('other'));
    for (const t of traces(plain)) expect(item).not.toContain(t);
    const migrated = await getWebhook('other');
    expect(migrated?.updatedDate).toBe('2026-01-01T00:00:00Z');
    expect((await openSecret('other', migrated?.secrets[0] as never)).secret).toBe(plain);
    expect((await migrateTable({ dryRun: true })).webhooksPlain).toBe(0);
    expect((await call('DELETE', '/v2/customers/other/webhook', { key: otherKey })).status).toBe(204);
  });
});

describe("the real API's Signature header through a rotation", () => {
  const body = '{"id":1}';
  const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

  it('is made with the previous secret (the one the receiver holds) while it still signs, with the current one after', () => {
    const during = signatureHeaders('msg_1', 1_700_000_000, body, [current, previous]);
    expect(during.Signature).toBe(realApiSignature(previous, body));
    expect(during['webhook-signature']).toBe(
      `${standardSignature(current, 'msg_1', 1_700_000_000, body)} ${standardSignature(previous, 'msg_1', 1_700_000_000, body)}`,
    );
    const after = signatureHeaders('msg_1', 1_700_000_000, body, [current]);
    expect(after.Signature).toBe(realApiSignature(current, body));
  });
});

describe('deployed: data keys from the stack key in KMS (answered at the SDK client, as KMS documents it)', () => {
  const keyId = 'arn:aws:kms:eu-west-1:000000000000:key/11111111-2222-3333-4444-555555555555';

  /**
   * KMS behind a real KMSClient's middleware: GenerateDataKey answers a fresh key and a blob that
   * only opens with the same encryption context (KMS binds the context to the ciphertext); Decrypt
   * refuses another context with InvalidCiphertextException, as KMS does.
   */
  function kmsAtTheClient() {
    const master = randomBytes(32);
    const calls: { command: string; input: Record<string, unknown> }[] = [];
    const aad = (context: unknown) => Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort()));
    const client = new KMSClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const command = String(context.commandName);
        const input = args.input as Record<string, unknown>;
        calls.push({ command, input });
        if (command === 'GenerateDataKeyCommand') {
          const plain = randomBytes(32);
          const iv = randomBytes(12);
          const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(input.EncryptionContext));
          const blob = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
          return { output: { Plaintext: plain, CiphertextBlob: blob, KeyId: input.KeyId, $metadata: {} }, response: {} } as never;
        }
        if (command === 'DecryptCommand') {
          const blob = Buffer.from(input.CiphertextBlob as Uint8Array);
          try {
            const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(aad(input.EncryptionContext));
            decipher.setAuthTag(blob.subarray(blob.length - 16));
            const plain = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
            return { output: { Plaintext: plain, KeyId: keyId, $metadata: {} }, response: {} } as never;
          } catch {
            throw Object.assign(new Error('InvalidCiphertextException (injected)'), { name: 'InvalidCiphertextException', $metadata: {} });
          }
        }
        throw new Error(`not answered by the test: ${command}`);
      },
      { step: 'initialize', name: 'kmsAtTheClient' },
    );
    return { client, calls };
  }

  it('seals with GenerateDataKey on the stack key and opens with Decrypt, the customer in the encryption context; another customer does not open it', async () => {
    const kms = kmsAtTheClient();
    const local = process.env.WEBHOOK_SECRETS_LOCAL_KEY;
    delete process.env.WEBHOOK_SECRETS_LOCAL_KEY;
    process.env.WEBHOOK_SECRETS_KMS_KEY_ID = keyId;
    setKmsClient(kms.client);
    try {
      const secret = { secret: `whsec_${randomBytes(32).toString('base64')}`, createdDate: '2026-01-01T00:00:00Z' };
      const sealed = await sealSecret('demo', secret);
      expect(sealed.sealed).toMatch(/^v1\.kms\./);
      expect(JSON.stringify(sealed)).not.toContain(secret.secret.slice('whsec_'.length));
      expect(kms.calls.map((c) => [c.command, c.input.KeyId, c.input.KeySpec, c.input.EncryptionContext])).toEqual([
        ['GenerateDataKeyCommand', keyId, 'AES_256', { customer: 'demo', purpose: 'webhook-secret' }],
      ]);
      // Opened where it was sealed: the data key is still in memory, no call.
      expect((await openSecret('demo', sealed)).secret).toBe(secret.secret);
      expect(kms.calls).toHaveLength(1);
      await expect(openSecret('other', sealed)).rejects.toThrow('InvalidCiphertextException');
      expect(kms.calls.at(-1)).toMatchObject({
        command: 'DecryptCommand',
        input: { EncryptionContext: { customer: 'other', purpose: 'webhook-secret' } },
      });
      // Without the local key, a secret sealed locally does not open, and nothing is sealed without a key.
      delete process.env.WEBHOOK_SECRETS_KMS_KEY_ID;
      await expect(sealSecret('demo', secret)).rejects.toThrow('No key to seal webhook secrets with');
    } finally {
      setKmsClient(undefined);
      delete process.env.WEBHOOK_SECRETS_KMS_KEY_ID;
      if (local !== undefined) process.env.WEBHOOK_SECRETS_LOCAL_KEY = local;
    }
  });
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateTable } from '../infra/migrate.ts';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { db } from '../shared/db/client.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { readContactCount, setContactCount } from '../shared/db/repositories/contacts.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
import { tableName } from '../shared/db/table.ts';
import { call } from './support/api.ts';
import { captureOutput } from './support/logs.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

/**
 * The address book's safety: personal data never in a log line, another customer's contact at the
 * same cost as a missing one, the documented limit, and the migration of contacts stored before it.
 */

const key = 'safety-key';
const base = '/v2/customers/safety/contacts';
const person = {
  name: 'Zoë Geheim',
  organization: 'Geheim B.V.',
  addressLine: ['Verborgenstraat 13'],
  postalCode: '9999 ZZ',
  city: 'Nergenshuizen',
  country: 'NL',
  email: 'zoe.geheim@private.example',
  voice: '+31.612345678',
  fax: '+31.612345679',
};

beforeAll(async () => {
  await putCustomer({ handle: 'safety', name: 'Safety B.V.', currency: 'EUR', privacyProtect: false, createdDate: '2026-01-01T00:00:00Z' });
  await putApiKey({ keyHash: hashApiKey(key), customer: 'safety', user: 'sam', permissions: [], createdDate: '2026-01-01T00:00:00Z' });
});

afterEach(() => {
  delete process.env.CONTACTS_MAX;
});

describe('Contacts: safety', () => {
  it('writes no personal data into any log line, answers and errors included', async () => {
    const lines = await captureOutput(async () => {
      expect((await call('POST', `${base}/secret-1`, { key, body: person })).status).toBe(201);
      expect((await call('POST', `${base}/secret-1/update`, { key, body: { email: 'zoe.nieuw@private.example' } })).status).toBe(200);
      expect((await call('GET', `${base}/secret-1`, { key })).status).toBe(200);
      expect((await call('GET', `${base}?email=zoe.nieuw@private.example&q=Geheim`, { key })).status).toBe(200);
      expect((await call('POST', `${base}/secret-2`, { key, body: { ...person, voice: '+31 6 12345678' } })).status).toBe(400);
    });
    expect(lines.length).toBeGreaterThan(0);
    const text = lines.join('\n');
    for (const secret of ['Geheim', 'Verborgenstraat', '9999 ZZ', 'Nergenshuizen', 'zoe.', '612345678', '12345678']) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it("reads another customer's contact with the same calls as a missing one", async () => {
    const theirs = await recordTableCalls(() => call('GET', '/v2/customers/demo/contacts/demo-admin', { key }));
    const missing = await recordTableCalls(() => call('GET', '/v2/customers/demo/contacts/no-such-one', { key }));
    expect(theirs.result.status).toBe(404);
    expect(missing.result.status).toBe(404);
    const shape = (calls: typeof theirs.details) => calls.map((c) => `${c.command} ${c.itemsRead}`);
    expect(shape(theirs.details)).toEqual(shape(missing.details));
    expect(theirs.result.body.message).toBe("Contact 'demo-admin' does not exist.");
  });

  it('refuses a contact beyond the documented limit with a 400, and takes one again after a delete', async () => {
    const count = await readContactCount('safety');
    process.env.CONTACTS_MAX = String(count + 1);
    expect((await call('POST', `${base}/limit-1`, { key, body: person })).status).toBe(201);
    const over = await call('POST', `${base}/limit-2`, { key, body: person });
    expect(over.status).toBe(400);
    expect(over.body.type).toBe('ValidationError');
    expect(over.body.message).toContain(`at most ${count + 1} contacts`);
    expect((await call('GET', `${base}/limit-2`, { key })).status).toBe(404);
    expect((await call('DELETE', `${base}/limit-1`, { key })).status).toBe(204);
    expect((await call('POST', `${base}/limit-2`, { key, body: person })).status).toBe(201);
  });

  it('migrates contacts stored before the address book: brand, listing keys and the count', async () => {
    // A contact as an earlier version stored it: no brand, no listing keys, not counted.
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: 'CONTACT#safety',
          sk: 'CONTACT#old-style',
          entity: 'contact',
          customer: 'safety',
          handle: 'old-style',
          ...person,
          createdDate: '2020-01-01T00:00:00Z',
        },
      }),
    );
    // The count drifted too: the migration sets it to the contacts there are.
    const before = await readContactCount('safety');
    await setContactCount('safety', before + 5);
    expect(await migrateTable({ dryRun: true })).toMatchObject({ contactsOldShape: 1, contactsMigrated: 0 });
    expect(await migrateTable()).toMatchObject({ contactsOldShape: 1, contactsMigrated: 1 });
    expect(await migrateTable()).toMatchObject({ contactsOldShape: 0 });
    const got = await call('GET', `${base}/old-style`, { key });
    expect(got.body).toMatchObject({ handle: 'old-style', brand: 'default', createdDate: '2020-01-01T00:00:00Z' });
    const listed = await call('GET', `${base}?order=createdDate&limit=1`, { key });
    expect(listed.body.entities[0].handle).toBe('old-style');
    expect(listed.body.pagination.total).toBe(before + 1);
  });
});

import { describe, expect, it } from 'vitest';
import { readContactCount } from '../shared/db/repositories/contacts.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * The address book (docs/contacts.md): the contact routes of the real API under
 * /v2/customers/{customer}/contacts, through the local gateway and the real handlers, with the
 * bodies the official SDKs send.
 */

const base = '/v2/customers/demo/contacts';
let serial = 0;
const fresh = (prefix = 'c') => `${prefix}-${process.pid}-${++serial}`;

/** A contact body as the TypeScript SDK sends it (its `create` picks these fields; unset ones are left out). */
const tsBody = (handle: string) => ({
  handle,
  name: 'Eva Smit',
  organization: 'Webshop Smit',
  addressLine: ['Prinsengracht 263'],
  postalCode: '1016 GV',
  city: 'Amsterdam',
  country: 'NL',
  email: 'eva@webshop-smit.example',
  voice: '+31.205556677',
});

/** The same as the PHP SDK sends it: `customer` and `handle` in the body, `null` for what is unset. */
const phpBody = (handle: string) => ({
  customer: 'demo',
  handle,
  name: 'Piet Puk',
  addressLine: ['Dorpsstraat 1', 'Achterhuis'],
  postalCode: '1234 AB',
  city: 'Utrecht',
  country: 'NL',
  email: 'piet@example.nl',
  voice: '+31.301234567',
  brand: null,
  organization: null,
  state: null,
  fax: null,
});

const create = (handle: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  call('POST', `${base}/${handle}`, { body, ...options });

async function created(handle = fresh(), body: unknown = tsBody(handle)): Promise<ApiResponse> {
  const res = await create(handle, body);
  expect(res.status, res.raw).toBe(201);
  return res;
}

describe('Contacts: create and get', () => {
  it('creates what the TypeScript SDK sends (201) and answers every field the SDKs read', async () => {
    const handle = fresh();
    const res = await created(handle);
    expect(res.body).toMatchObject({ customer: 'demo', handle, brand: 'default', name: 'Eva Smit', country: 'NL' });
    expect(res.body.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const got = await call('GET', `${base}/${handle}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    // The PHP SDK's Contact::fromArray needs these keys, with these types.
    for (const key of ['customer', 'handle', 'brand', 'name', 'postalCode', 'city', 'country', 'email', 'voice', 'createdDate']) {
      expect(typeof got.body[key], key).toBe('string');
    }
    expect(Array.isArray(got.body.addressLine)).toBe(true);
  });

  it('creates what the PHP SDK sends: customer and handle in the body, null for unset fields', async () => {
    const handle = fresh('php');
    const res = await created(handle, phpBody(handle));
    expect(res.body).toMatchObject({ handle, brand: 'default', addressLine: ['Dorpsstraat 1', 'Achterhuis'] });
    expect(res.body).not.toHaveProperty('organization');
    expect(res.body).not.toHaveProperty('fax');
  });

  it('refuses a body naming another customer or handle than the path, field by field', async () => {
    const handle = fresh();
    const res = await create(handle, { ...phpBody(handle), customer: 'other', handle: 'someone-else' });
    expect(res.status).toBe(400);
    expect(res.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['customer', 'handle']);
  });

  it('answers 409 ObjectExists for a handle in use', async () => {
    const res = await create('demo-admin', tsBody('demo-admin'));
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('ObjectExists');
  });

  it('reads the demo contacts with their brand and registry properties', async () => {
    const res = await call('GET', `${base}/demo-registrant`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      brand: 'default',
      properties: { sidn: { legalForm: 'BV' }, nominet: { ukContactType: 'FCORP' } },
      registries: ['nominet', 'sidn'],
    });
    const fields = await call('GET', `${base}/demo-registrant?fields=handle,email`);
    expect(fields.body).toEqual({ handle: 'demo-registrant', email: 'domains@demo-hosting.example' });
    const bad = await call('GET', `${base}/demo-registrant?fields=secret`);
    expect(bad.status).toBe(400);
  });
});

describe('Contacts: validation as a registry would', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['country not ISO 3166-1', { country: 'UK' }, 'country'],
    ['country in lower case', { country: 'nl' }, 'country'],
    ['voice not E.164a', { voice: '+31 20 1234567' }, 'voice'],
    ['fax not E.164a', { fax: '0201234567' }, 'fax'],
    ['email not an address', { email: 'nobody' }, 'email'],
    ['no address line', { addressLine: [] }, 'addressLine'],
    ['four address lines', { addressLine: ['a', 'b', 'c', 'd'] }, 'addressLine'],
    ['a postal code over 16', { postalCode: '12345678901234567' }, 'postalCode'],
    ['a name over 255', { name: 'x'.repeat(256) }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a null required field', { email: null }, 'email'],
  ];
  for (const [what, change, field] of cases) {
    it(`refuses ${what}, naming ${field}`, async () => {
      const handle = fresh();
      const res = await create(handle, { ...tsBody(handle), ...change });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('ConstraintViolationException');
      expect(res.body.violations.map((v: { field: string }) => v.field)).toContain(field);
      expect(res.headers['x-request-id'] ?? res.body.requestId).toBeTruthy();
    });
  }

  it('refuses an unknown body field', async () => {
    const handle = fresh();
    const res = await create(handle, { ...tsBody(handle), surprise: 1 });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('UnrecognizedPropertyException');
  });
});

describe('Contacts: update', () => {
  it('changes only the fields sent; an empty string removes an optional field', async () => {
    const handle = fresh();
    await created(handle);
    const res = await call('POST', `${base}/${handle}/update`, { body: { organization: '', email: 'new@webshop-smit.example' } });
    expect(res.status, res.raw).toBe(200);
    expect(res.body).not.toHaveProperty('organization');
    expect(res.body).toMatchObject({ email: 'new@webshop-smit.example', name: 'Eva Smit', city: 'Amsterdam' });
    expect(res.body.updatedDate).toBeDefined();
    const got = await call('GET', `${base}/${handle}`);
    expect(got.body).toEqual(res.body);
  });

  it('takes what the PHP SDK sends (customer, handle, and only what is set)', async () => {
    const handle = fresh();
    await created(handle);
    const res = await call('POST', `${base}/${handle}/update`, { body: { customer: 'demo', handle, city: 'Haarlem', fax: null } });
    expect(res.status).toBe(200);
    expect(res.body.city).toBe('Haarlem');
  });

  it('refuses an empty required field and a bad value, naming the field', async () => {
    const handle = fresh();
    await created(handle);
    const res = await call('POST', `${base}/${handle}/update`, { body: { name: '', voice: '12' } });
    expect(res.status).toBe(400);
    expect(res.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['name', 'voice']);
  });

  it('answers a missing contact 404', async () => {
    const res = await call('POST', `${base}/nobody-here/update`, { body: { city: 'Haarlem' } });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('ObjectDoesNotExist');
  });
});

describe('Contacts: ownership', () => {
  it("answers another customer's contact exactly like a missing one", async () => {
    const theirs = await call('GET', '/v2/customers/other/contacts/other-registrant');
    const missing = await call('GET', '/v2/customers/other/contacts/no-such-contact');
    expect(theirs.status).toBe(404);
    expect(missing.status).toBe(404);
    expect({ ...theirs.body, identifier: undefined, requestId: undefined, message: undefined }).toEqual({
      ...missing.body,
      identifier: undefined,
      requestId: undefined,
      message: undefined,
    });
    expect(theirs.body.message).toBe("Contact 'other-registrant' does not exist.");
    // Their own key reads it.
    expect((await call('GET', '/v2/customers/other/contacts/other-registrant', { key: otherKey })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v2/customers/other/contacts/other-registrant/update', { city: 'Oakland' }],
      ['DELETE', '/v2/customers/other/contacts/other-registrant', undefined],
      ['POST', '/v2/customers/other/contacts/other-registrant/validate', { categories: ['General'] }],
      ['POST', '/v2/customers/other/contacts/other-registrant/split', { newHandle: 'stolen-copy' }],
      ['POST', '/v2/customers/other/contacts/other-registrant/sidn', { properties: { legalForm: 'BV' } }],
    ] as const) {
      const res = await call(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const still = await call('GET', '/v2/customers/other/contacts/other-registrant', { key: otherKey });
    expect(still.body.city).toBe('San Francisco');
  });

  it("refuses listing or creating in another customer's address book (403)", async () => {
    expect((await call('GET', '/v2/customers/other/contacts')).status).toBe(403);
    expect((await call('POST', '/v2/customers/other/contacts/planted', { body: tsBody('planted') })).status).toBe(403);
  });
});

describe('Contacts: delete', () => {
  it('deletes an unused contact (204), counted', async () => {
    const handle = fresh();
    await created(handle);
    const before = await readContactCount('demo');
    const res = await call('DELETE', `${base}/${handle}`);
    expect(res.status).toBe(204);
    expect((await call('GET', `${base}/${handle}`)).status).toBe(404);
    expect(await readContactCount('demo')).toBe(before - 1);
    expect((await call('DELETE', `${base}/${handle}`)).status).toBe(404);
  });

  it('refuses while a domain uses the contact, naming it', async () => {
    const res = await call('DELETE', `${base}/demo-admin`);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ObjectStatusProhibitsOperation');
    expect(res.body.message).toMatch(/the domain .* uses it/);
  });

  it('refuses while a transfer in progress names the contact', async () => {
    const handle = fresh('reg');
    await created(handle);
    const name = `contact-use-${process.pid}.com`;
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pending', seconds: 3600 }], outcome: 'completed' } });
    const started = await transfer(name, { ...demoBody, registrant: handle, authcode: 'TEST-CODE' });
    expect(started.status, started.raw).toBe(202);
    const res = await call('DELETE', `${base}/${handle}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(name);
  });
});

describe('Contacts: idempotency', () => {
  it('replays a create under the same Idempotency-Key, and creates once', async () => {
    const handle = fresh();
    const headers = { 'Idempotency-Key': `contact-${handle}` };
    const first = await create(handle, tsBody(handle), { headers });
    const again = await create(handle, tsBody(handle), { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('Contacts: validate, split, properties', () => {
  it('validates for the categories given', async () => {
    const handle = fresh();
    await created(handle);
    const res = await call('POST', `${base}/${handle}/validate`, { body: { categories: ['General'] } });
    expect(res.status).toBe(200);
    expect(res.body.validations).toEqual([{ validatedOn: expect.any(String), version: 1, category: 'General' }]);
    const again = await call('POST', `${base}/${handle}/validate`, { body: { categories: ['General'] } });
    expect(again.body.validations[0].version).toBe(2);
    const bad = await call('POST', `${base}/${handle}/validate`, { body: { categories: ['Everything'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.violations[0].field).toBe('categories[0]');
  });

  it('splits a contact to a new handle (201), keeping the named registries', async () => {
    const newHandle = fresh('split');
    const res = await call('POST', `${base}/demo-registrant/split`, { body: { newHandle, registries: ['sidn'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      handle: newHandle,
      name: 'Anna de Vries',
      properties: { sidn: { legalForm: 'BV' } },
      registries: ['sidn'],
    });
    expect((await call('GET', `${base}/${newHandle}`)).status).toBe(200);
    const taken = await call('POST', `${base}/demo-registrant/split`, { body: { newHandle } });
    expect(taken.status).toBe(409);
  });

  it("checks properties against the registry's contactProperties", async () => {
    const handle = fresh();
    await created(handle);
    const unknown = await call('POST', `${base}/${handle}/sidn`, { body: { properties: { legalForm: 'BV', shoeSize: '44' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.violations).toEqual([expect.objectContaining({ field: 'properties.shoeSize' })]);
    const outside = await call('POST', `${base}/${handle}/sidn`, { body: { properties: { legalForm: 'LLC' } } });
    expect(outside.status).toBe(400);
    expect(outside.body.violations).toEqual([expect.objectContaining({ field: 'properties.legalForm', value: 'LLC' })]);
    const missing = await call('POST', `${base}/${handle}/sidn`, { body: { properties: {} } });
    expect(missing.status).toBe(400);
    expect(missing.body.violations[0].field).toBe('properties.legalForm');
    const added = await call('POST', `${base}/${handle}/sidn`, { body: { properties: { legalForm: 'BV' }, intendedUsage: 'REGISTRANT' } });
    expect(added.status, added.raw).toBe(200);
    expect(added.body).toMatchObject({ properties: { sidn: { legalForm: 'BV' } }, registries: ['sidn'] });
    const twice = await call('POST', `${base}/${handle}/sidn`, { body: { properties: { legalForm: 'NV' } } });
    expect(twice.status).toBe(400);
    const changed = await call('POST', `${base}/${handle}/sidn/update`, { body: { properties: { legalForm: 'NV' } } });
    expect(changed.status).toBe(200);
    expect(changed.body.properties).toEqual({ sidn: { legalForm: 'NV' } });
    const phpEmpty = await call('POST', `${base}/${handle}/sidn/update`, { body: { properties: null } });
    expect(phpEmpty.status).toBe(200);
    expect(phpEmpty.body.properties).toEqual({ sidn: { legalForm: 'NV' } });
    const phpArray = await call('POST', `${base}/${handle}/sidn/update`, { body: { properties: [] } });
    expect(phpArray.status, phpArray.raw).toBe(200);
    const notAMap = await call('POST', `${base}/${handle}/sidn/update`, { body: { properties: ['BV'] } });
    expect(notAMap.status).toBe(400);
    expect(notAMap.body.violations[0].field).toBe('properties');
    const nominet = await call('POST', `${base}/${handle}/nominet/update`, { body: { properties: { ukContactType: 'LTD' } } });
    expect(nominet.status).toBe(400);
    const registry = await call('POST', `${base}/${handle}/no-such-registry`, { body: { properties: {} } });
    expect(registry.status).toBe(404);
  });
});

describe('Contacts where they are used: the transfer', () => {
  it('refuses a registrant or contact handle the customer does not have, naming it', async () => {
    const res = await transfer(
      'transfer-now.nl',
      { ...demoBody, registrant: 'no-such-handle', authcode: 'NL-TRANSFER-2026' },
      { quote: true },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'ObjectDoesNotExist', identifier: 'no-such-handle' });
    const contact = await transfer(
      'transfer-now.nl',
      { ...demoBody, contacts: [{ role: 'ADMIN', handle: 'no-such-admin' }], authcode: 'NL-TRANSFER-2026' },
      { quote: true },
    );
    expect(contact.body).toMatchObject({ type: 'ObjectDoesNotExist', identifier: 'no-such-admin' });
  });

  it("refuses a .nl registrant without SIDN's legalForm, naming the property; takes it once added", async () => {
    const handle = fresh('nl');
    await created(handle);
    const res = await transfer('transfer-now.nl', { ...demoBody, registrant: handle, authcode: 'NL-TRANSFER-2026' }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.violations).toEqual([{ field: 'registrant', message: 'lacks the sidn property legalForm', value: handle }]);
    // As an ADMIN contact it needs none.
    const admin = await transfer(
      'transfer-now.nl',
      { ...demoBody, contacts: [{ role: 'ADMIN', handle }], authcode: 'NL-TRANSFER-2026' },
      { quote: true },
    );
    expect(admin.status, admin.raw).toBe(200);
    expect((await call('POST', `${base}/${handle}/sidn`, { body: { properties: { legalForm: 'EENMANSZAAK' } } })).status).toBe(200);
    const quoted = await transfer('transfer-now.nl', { ...demoBody, registrant: handle, authcode: 'NL-TRANSFER-2026' }, { quote: true });
    expect(quoted.status, quoted.raw).toBe(200);
  });
});

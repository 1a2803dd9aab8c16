import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { newContactItems, setContactCount } from '../shared/db/repositories/contacts.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
import type { ContactRecord } from '../shared/model/contact.ts';
import { call } from './support/api.ts';
import { fullItemsRead, recordTableCalls } from './support/sdk-calls.ts';

/**
 * GET /v2/customers/{customer}/contacts: the generic listing (as the processes and notifications
 * have it) over the caller's address book, with the filters and orders the SDKs and the WHMCS
 * module send.
 */

const base = '/v2/customers/listing/contacts';
const key = 'listing-key';

const contact = (i: number, organization?: string) => ({
  name: `Person ${String(i).padStart(2, '0')}`,
  ...(organization ? { organization } : {}),
  addressLine: [`Straat ${i}`],
  postalCode: '1000 AA',
  city: i % 2 === 0 ? 'Amsterdam' : 'Rotterdam',
  country: i % 3 === 0 ? 'BE' : 'NL',
  email: `person${i}@example.nl`,
  voice: `+31.20555${String(i).padStart(4, '0')}`,
});

const list = (query: string) => call('GET', `${base}${query}`, { key });

type Calls = Awaited<ReturnType<typeof recordTableCalls>>['details'];
/** The contacts read whole (BatchGet: a listing through entries reads only its page so). */
const contactsRead = (calls: Calls) => calls.filter((d) => d.command.startsWith('BatchGet')).reduce((n, d) => n + d.itemsRead, 0);
/** Whether a Query read the address book's own listings (every contact, by handle or creation date). */
const readsAddressBook = (calls: Calls) =>
  calls.some((d) => d.command.startsWith('Query') && JSON.stringify(d.input).includes('"CONTACT#listing"'));

describe('Contacts: listing', () => {
  // A customer of its own, so the counts are exactly the contacts made here.
  beforeAll(async () => {
    await putCustomer({
      handle: 'listing',
      name: 'Listing B.V.',
      currency: 'EUR',
      privacyProtect: false,
      createdDate: '2026-01-01T00:00:00Z',
    });
    await putApiKey({
      keyHash: hashApiKey(key),
      customer: 'listing',
      user: 'lister',
      permissions: [],
      createdDate: '2026-01-01T00:00:00Z',
    });
    for (let i = 1; i <= 12; i++) {
      const res = await call('POST', `${base}/person-${String(i).padStart(2, '0')}`, { key, body: contact(i, i <= 4 ? 'Org' : undefined) });
      expect(res.status, res.raw).toBe(201);
    }
  });

  it('pages by handle with the kept total by default, as the SDKs read it', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
    expect(res.body.entities.map((c: { handle: string }) => c.handle)).toEqual(
      Array.from({ length: 10 }, (_, i) => `person-${String(i + 1).padStart(2, '0')}`),
    );
    const next = await list('?offset=10&limit=5');
    expect(next.body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-11', 'person-12']);
    expect((await list('?limit=0')).body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: 12 } });
    expect((await list('?total=false&limit=1')).body.pagination).toEqual({ limit: 1, offset: 0 });
    // The TypeScript SDK lists with a trailing slash.
    const slash = await call('GET', `${base}/?limit=1`, { key });
    expect(slash.status).toBe(200);
    expect(slash.body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-01']);
  });

  it('orders by handle or creation date, either way', async () => {
    const desc = await list('?order=-handle&limit=2');
    expect(desc.body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-12', 'person-11']);
    const newest = await list('?order=-createdDate&limit=3&fields=handle');
    expect(newest.body.entities).toEqual([{ handle: 'person-12' }, { handle: 'person-11' }, { handle: 'person-10' }]);
    expect((await list('?order=name')).status).toBe(400);
  });

  it('filters as the WHMCS module asks: organization:null, export with fields=handle', async () => {
    const none = await list('?organization:null=&limit=100');
    expect(none.body.pagination.total).toBe(8);
    expect(none.body.entities.every((c: { organization?: string }) => c.organization === undefined)).toBe(true);
    const exported = await list('?export=true&fields=handle&organization=Org&order=-createdDate');
    expect(exported.body.entities).toEqual([
      { handle: 'person-04' },
      { handle: 'person-03' },
      { handle: 'person-02' },
      { handle: 'person-01' },
    ]);
  });

  it('filters on handle, name, email, country and createdDate, and searches with q', async () => {
    const one = await list('?handle=person-07');
    expect(one.body.pagination.total).toBe(1);
    expect(one.body.entities[0].name).toBe('Person 07');
    expect((await list('?handle=nobody')).body).toEqual({ entities: [], pagination: { limit: 10, offset: 0, total: 0 } });
    expect((await list('?country=BE&limit=100')).body.pagination.total).toBe(4);
    expect((await list('?country:in=BE,NL')).body.pagination.total).toBe(12);
    expect((await list('?name:like=Person 1*')).body.pagination.total).toBe(3);
    expect((await list('?email=person5@example.nl')).body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-05']);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?createdDate=${today}`)).body.pagination.total).toBe(12);
    expect((await list('?createdDate:lt=2020-01-01')).body.pagination.total).toBe(0);
    // person1@, person10@, person11@, person12@ (the e-mail addresses).
    expect((await list('?q=PERSON1')).body.pagination.total).toBe(4);
  });

  it('names a bad parameter', async () => {
    const res = await list('?colour=red&limit=500');
    expect(res.status).toBe(400);
    expect(res.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['colour', 'limit']);
    expect((await list('?country:gt=NL')).status).toBe(400);
  });

  it('reads only the page and the kept count without filters, skipping offset over keys', async () => {
    const calls = await recordTableCalls(() => list('?offset=5&limit=3'));
    expect(calls.result.body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-06', 'person-07', 'person-08']);
    // The API key (authorizer, cached), the kept count and the page's three contacts.
    expect(fullItemsRead(calls.details)).toBeLessThanOrEqual(5);
  });

  it('counts a deep offset from the nearer end of the book, either order: the same pages, at most half the keys', async () => {
    const handles = (res: { body: { entities: { handle: string }[] } }) => res.body.entities.map((c) => c.handle);
    const all = handles(await list('?limit=100&total=false'));
    expect(all).toHaveLength(12);
    for (const [query, expected] of [
      ['?offset=9&limit=2', all.slice(9, 11)],
      ['?offset=11&limit=5', all.slice(11)],
      ['?offset=7&limit=10', all.slice(7)],
      ['?offset=12', []],
      ['?offset=9&limit=2&order=-handle', [...all].reverse().slice(9, 11)],
    ] as const) {
      const calls = await recordTableCalls(() => list(query));
      expect(handles(calls.result), query).toEqual(expected);
      const counted = calls.details.filter((d) => d.command.startsWith('Query') && d.input.Select === 'COUNT');
      expect(
        counted.reduce((n, d) => n + d.itemsRead, 0),
        query,
      ).toBeLessThanOrEqual(6);
    }
    // A shallow offset counts from the start, as before.
    expect(handles(await list('?offset=2&limit=2'))).toEqual(all.slice(2, 4));
  });

  it('reads an exact email, name, organization, country or organization:null through its own listing: the page, not the address book', async () => {
    const be = await recordTableCalls(() => list('?country=BE&limit=2'));
    expect(be.result.body.pagination.total).toBe(4);
    expect(be.result.body.entities.map((c: { handle: string }) => c.handle)).toEqual(['person-03', 'person-06']);
    // Of the contacts, only the page's two are read; the address book's own listings are not queried.
    expect(contactsRead(be.details)).toBe(2);
    expect(readsAddressBook(be.details)).toBe(false);
    const none = await recordTableCalls(() => list('?organization:null=&order=-createdDate&limit=2&fields=handle'));
    expect(none.result.body).toEqual({
      entities: [{ handle: 'person-12' }, { handle: 'person-11' }],
      pagination: { limit: 2, offset: 0, total: 8 },
    });
    expect(contactsRead(none.details)).toBe(2);
    expect(readsAddressBook(none.details)).toBe(false);
    expect((await list('?name=Person 07&fields=handle')).body.entities).toEqual([{ handle: 'person-07' }]);
    expect((await list('?organization=Org&offset=2&limit=5&fields=handle')).body).toEqual({
      entities: [{ handle: 'person-03' }, { handle: 'person-04' }],
      pagination: { limit: 5, offset: 2, total: 4 },
    });
    // With a filter the listing does not answer, checked on the contacts of that value only.
    expect((await list('?country=BE&city=Amsterdam&fields=handle')).body.entities).toEqual([
      { handle: 'person-06' },
      { handle: 'person-12' },
    ]);
  });

  it('keeps those listings with every write: update, removal of the organization, delete', async () => {
    const made = await call('POST', `${base}/moving`, { key, body: { ...contact(13, 'Org'), email: 'old@example.nl' } });
    expect(made.status).toBe(201);
    expect((await list('?email=old@example.nl&fields=handle')).body.entities).toEqual([{ handle: 'moving' }]);
    const moved = await call('POST', `${base}/moving/update`, { key, body: { email: 'new@example.nl', organization: '' } });
    expect(moved.status, moved.raw).toBe(200);
    expect((await list('?email=old@example.nl')).body.pagination.total).toBe(0);
    expect((await list('?email=new@example.nl&fields=handle')).body.entities).toEqual([{ handle: 'moving' }]);
    expect((await list('?organization=Org')).body.pagination.total).toBe(4);
    expect((await list('?organization:null=')).body.pagination.total).toBe(9);
    expect((await call('DELETE', `${base}/moving`, { key })).status).toBe(204);
    expect((await list('?email=new@example.nl')).body.pagination.total).toBe(0);
    expect((await list('?organization:null=')).body.pagination.total).toBe(8);
  });

  it('reads a createdDate range only, by creation date unless another order is asked', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ranged = await recordTableCalls(() => list(`?createdDate:gte=${today}&limit=2&fields=handle`));
    expect(ranged.result.body).toEqual({
      entities: [{ handle: 'person-01' }, { handle: 'person-02' }],
      pagination: { limit: 2, offset: 0, total: 12 },
    });
    expect(fullItemsRead(ranged.details)).toBeLessThanOrEqual(4);
    expect((await list(`?createdDate:lt=${today}`)).body.pagination.total).toBe(0);
    expect((await list(`?createdDate=${today}&order=-handle&limit=1&fields=handle`)).body.entities).toEqual([{ handle: 'person-12' }]);
  });

  it('refuses a listing its source does not answer once it has read for CONTACT_LIST_READ_MS, saying how to narrow it', async () => {
    process.env.CONTACT_LIST_READ_MS = '0';
    try {
      for (const query of ['?q=nobody-has-this&total=false&limit=1', '?city:like=*x*&total=false&limit=1']) {
        const res = await list(query);
        expect(res.status, query).toBe(400);
        expect(res.body.type).toBe('ValidationError');
        expect(res.body.message).toMatch(/exact handle, email, name, organization or country|exact email, name, organization or country/);
      }
      // What an index answers is not bounded by it; a deep offset, counted over keys, is.
      expect((await list('?country=NL&limit=1')).status).toBe(200);
      const deep = await list('?offset=5&limit=1&total=false');
      expect(deep.status).toBe(400);
      expect(deep.body.type).toBe('ValidationError');
    } finally {
      delete process.env.CONTACT_LIST_READ_MS;
    }
  });

  it('exports a whole address book larger than a listing page in few large Queries of the record attributes only', async () => {
    // 1,200 contacts (more than the 1,000 a listing page reads) of a customer of their own, written in
    // bulk; their listing entries are left out to keep the test cheap (an export without filters reads none).
    const customer = 'exporter';
    const exportKey = 'exporter-key';
    await putCustomer({
      handle: customer,
      name: 'Exporter B.V.',
      currency: 'EUR',
      privacyProtect: false,
      createdDate: '2026-01-01T00:00:00Z',
    });
    await putApiKey({ keyHash: hashApiKey(exportKey), customer, user: 'exporter', permissions: [], createdDate: '2026-01-01T00:00:00Z' });
    const records: ContactRecord[] = Array.from({ length: 1_200 }, (_, i) => ({
      customer,
      handle: `book-${String(i).padStart(4, '0')}`,
      brand: 'default',
      ...contact(i, i % 10 === 0 ? undefined : `Company ${i % 50}`),
      ...(i === 7 ? { properties: { sidn: { legalForm: 'BV' } } } : {}),
      createdDate: '2026-02-01T00:00:00Z',
    }));
    await batchWriteAll(records.map((r) => ({ put: newContactItems(r)[0] as Record<string, unknown> })));
    await setContactCount(customer, records.length);

    const fields = ['handle', 'name', 'addressLine', 'city', 'properties', 'registries', 'createdDate'];
    const { result, details } = await recordTableCalls(() =>
      call('GET', `/v2/customers/${customer}/contacts?export=true&fields=${fields.join(',')}`, { key: exportKey }),
    );
    expect(result.status, result.raw).toBe(200);
    const entities = result.body.entities as Record<string, unknown>[];
    expect(entities.map((c) => c.handle)).toEqual(records.map((r) => r.handle));
    expect(result.body.pagination).toEqual({ limit: 1_200, offset: 0, total: 1_200 });
    // The fields asked, as a single contact's GET answers them.
    const one = (await call('GET', `/v2/customers/${customer}/contacts/book-0007?fields=${fields.join(',')}`, { key: exportKey })).body;
    expect(one.properties).toEqual({ sidn: { legalForm: 'BV' } });
    expect(entities[7]).toEqual(one);
    const queries = details.filter((d) => d.command.startsWith('Query'));
    // One Query (DynamoDB's 1 MB a page holds them; a listing page of 1,000 would take two), no per-contact reads.
    expect(queries).toHaveLength(1);
    expect(details.filter((d) => d.command.startsWith('BatchGet'))).toEqual([]);
    expect(queries[0]?.itemsRead).toBe(1_200);
    // The record's attributes only: no keys or index attributes come back.
    expect(queries[0]?.input.ProjectionExpression).toBeDefined();
    expect(queries[0]?.bytesAnswered).toBeLessThan(1_200 * 350);
  });
});

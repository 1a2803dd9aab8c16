import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
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
});

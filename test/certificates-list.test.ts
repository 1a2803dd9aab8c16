import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { putCertificate } from '../shared/db/repositories/certificates.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
import type { CertificateRecord } from '../shared/model/certificate.ts';
import { call, otherKey } from './support/api.ts';
import { fullItemsRead, recordTableCalls } from './support/sdk-calls.ts';

/**
 * GET /v2/ssl/certificates: the generic listing (as processes and contacts have it) over the
 * caller's certificates, each in the shape of GET /v2/ssl/certificates/{id}, with the query
 * parameters the SDKs send (`ssl.list`, `listCertificates`).
 */

const key = 'certlist-key';
const list = (query: string, as = key) => call('GET', `/v2/ssl/certificates${query}`, { key: as });
const ids = (res: { body: { entities: { id: number }[] } }) => res.body.entities.map((c) => c.id);

/** Twelve certificates 8101..8112 of a customer of their own: DV (odd) and OV (even), three revoked, dates a month apart. */
function certificate(i: number): CertificateRecord {
  const month = String(i).padStart(2, '0');
  const name = `site${i}.certlist.example`;
  return {
    id: 8100 + i,
    customer: 'certlist',
    product: i % 2 === 1 ? 'ssl_sectigo_dv' : 'ssl_sectigo_ov',
    commonName: name,
    san: i === 5 ? [name, 'shop.special.example'] : [name],
    status: i % 4 === 0 ? 'REVOKED' : 'ACTIVE',
    serialNumber: `CL${String(i).padStart(4, '0')}`,
    startDate: `2026-${month}-10T10:00:00Z`,
    expiryDate: `2027-${month}-10T10:00:00Z`,
    ...(i === 3 ? { subscriptionEndDate: '2029-03-10T10:00:00Z' } : {}),
    ...(i % 2 === 0 ? { organization: 'Certlist B.V.' } : {}),
    keyType: i === 7 ? 'EC-P-256' : 'RSA-2048',
    processId: 8200 + i,
    createdDate: `2026-${month}-10T10:00:00Z`,
    updatedDate: `2026-${month}-10T10:00:00Z`,
  };
}

describe('Certificates: listing', () => {
  beforeAll(async () => {
    await putCustomer({
      handle: 'certlist',
      name: 'Certlist B.V.',
      currency: 'EUR',
      privacyProtect: false,
      createdDate: '2026-01-01T00:00:00Z',
    });
    await putApiKey({
      keyHash: hashApiKey(key),
      customer: 'certlist',
      user: 'lister',
      permissions: [],
      createdDate: '2026-01-01T00:00:00Z',
    });
    for (let i = 1; i <= 12; i++) await putCertificate(certificate(i));
    // Another customer's certificate with a name like ours: never listed.
    await putCertificate({ ...certificate(1), id: 8199, customer: 'other', commonName: 'site1.certlist.example' });
  });

  afterEach(() => {
    delete process.env.CERTIFICATE_LIST_MAX_READ;
    delete process.env.CERTIFICATE_LIST_READ_MS;
    delete process.env.CERTIFICATE_LIST_MAX_COUNT;
  });

  it('pages newest first with the total by default, each certificate as GET /v2/ssl/certificates/{id} answers it', async () => {
    const res = await list('');
    expect(res.status, res.raw).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 12 });
    expect(ids(res)).toEqual([8112, 8111, 8110, 8109, 8108, 8107, 8106, 8105, 8104, 8103]);
    for (const id of [8112, 8107, 8103]) {
      const one = await call('GET', `/v2/ssl/certificates/${id}`, { key });
      expect(res.body.entities.find((c: { id: number }) => c.id === id)).toEqual(one.body);
    }
    expect(res.body.entities[0]).toMatchObject({
      id: 8112,
      process: 8212,
      validationType: 'ORGANIZATION_VALIDATION',
      certificateType: 'SINGLE_DOMAIN',
      domainName: 'site12.certlist.example',
      status: 'REVOKED',
      publicKeyAlgorithm: 'RSA',
      publicKeySize: 2048,
    });
    expect(ids(await list('?offset=10&limit=5'))).toEqual([8102, 8101]);
    expect(ids(await list('?order=id&limit=3'))).toEqual([8101, 8102, 8103]);
    expect((await list('?limit=0')).body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: 12 } });
    expect((await list('?total=false&limit=1')).body.pagination).toEqual({ limit: 1, offset: 0 });
    expect((await list('?offset=20')).body).toEqual({ entities: [], pagination: { limit: 10, offset: 20, total: 12 } });
    // The TypeScript SDK lists with a trailing slash.
    const slash = await call('GET', '/v2/ssl/certificates/?limit=1', { key });
    expect(ids(slash)).toEqual([8112]);
  });

  it('filters with every matcher the SDKs send, counting the matches', async () => {
    const total = async (query: string) => {
      const res = await list(`${query}&limit=100`);
      expect(res.status, res.raw).toBe(200);
      expect(res.body.pagination.total).toBe(res.body.entities.length);
      return ids(res);
    };
    expect(await total('?status=REVOKED')).toEqual([8112, 8108, 8104]);
    expect(await total('?status:ne=ACTIVE')).toEqual([8112, 8108, 8104]);
    expect(await total('?status:not_in=ACTIVE,SUSPENDED')).toEqual([8112, 8108, 8104]);
    expect(await total('?id:in=8101,8105,8199,abc')).toEqual([8105, 8101]);
    expect(await total('?id=8103')).toEqual([8103]);
    expect(await total('?id=8199')).toEqual([]);
    expect(await total('?id=8103&status=REVOKED')).toEqual([]);
    expect(await total('?validationType=ORGANIZATION_VALIDATION&status=ACTIVE')).toEqual([8110, 8106, 8102]);
    expect(await total('?product:like=*_dv&domainName:not_like=site1*')).toEqual([8109, 8107, 8105, 8103]);
    expect(await total('?domainName:in=site2.certlist.example,site4.certlist.example')).toEqual([8104, 8102]);
    expect(await total('?san=shop.special.example')).toEqual([8105]);
    expect(await total('?san:like=*.special.example')).toEqual([8105]);
    expect((await total('?san:not_like=*.special.example')).length).toBe(11);
    expect(await total('?organization:null=&status=REVOKED')).toEqual([]);
    expect((await total('?organization:not_null=')).length).toBe(6);
    expect(await total('?publicKeyAlgorithm=ECDSA')).toEqual([8107]);
    expect(await total('?expiryDate:gte=2027-10-01&expiryDate:lt=2027-12-10T10:00:00Z')).toEqual([8111, 8110]);
    expect(await total('?startDate=2026-03-10')).toEqual([8103]);
    expect(await total('?subscriptionEndDate:not_null=')).toEqual([8103]);
    expect(await total('?q=SPECIAL')).toEqual([8105]);
    expect(await total('?q=cl0011')).toEqual([8111]);
    expect(ids(await list('?status=ACTIVE&offset=2&limit=2'))).toEqual([8109, 8107]);
  });

  it("never lists another customer's certificates", async () => {
    const mine = await list('?domainName=site1.certlist.example');
    expect(ids(mine)).toEqual([8101]);
    expect(ids(await list('?q=site1.certlist'))).toEqual([8101]);
    expect(ids(await list('?q=site1&limit=100'))).toEqual([8112, 8111, 8110, 8101]);
    const other = await list('?limit=100', otherKey);
    expect(other.status).toBe(200);
    expect(ids(other)).not.toContain(8101);
    expect(ids(other)).toContain(8199);
    expect(ids(other).every((id) => id < 8100 || id === 8199)).toBe(true);
    expect((await list('?id=8199')).body).toEqual({ entities: [], pagination: { limit: 10, offset: 0, total: 0 } });
  });

  it('answers the fields asked for, and exports every match', async () => {
    const some = await list('?fields=id,domainName&fields=status&limit=2');
    expect(some.body.entities).toEqual([
      { id: 8112, domainName: 'site12.certlist.example', status: 'REVOKED' },
      { id: 8111, domainName: 'site11.certlist.example', status: 'ACTIVE' },
    ]);
    const exported = await list('?export=true&status=ACTIVE');
    expect(exported.status).toBe(200);
    expect(exported.body.pagination).toEqual({ limit: 9, offset: 0, total: 9 });
    expect(exported.body.entities[0]).toEqual({
      id: 8111,
      domainName: 'site11.certlist.example',
      product: 'ssl_sectigo_dv',
      status: 'ACTIVE',
      expiryDate: '2027-11-10T10:00:00Z',
    });
    const all = await list('?export=true&fields=id');
    expect(all.body.entities.length).toBe(12);
    expect((await list('?export=true&limit=5')).status).toBe(400);
  });

  it('refuses what it cannot parse with a 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['?colour=red', 'colour'],
      ['?status=BROKEN', 'status'],
      ['?id:like=81*', 'id:like'],
      ['?expiryDate:gt=tomorrow', 'expiryDate:gt'],
      ['?fields=secret', 'fields'],
      ['?order=domainName', 'order'],
      ['?limit=101', 'limit'],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.body.type).toBe('ConstraintViolationException');
      expect(res.raw).toContain(parameter);
    }
  });

  it('reads only the page without filters, skipping offset and counting over keys', async () => {
    const calls = await recordTableCalls(() => list('?offset=5&limit=3'));
    expect(ids(calls.result)).toEqual([8107, 8106, 8105]);
    expect(fullItemsRead(calls.details)).toBeLessThanOrEqual(4);
    const filtered = await recordTableCalls(() => list('?status=REVOKED&limit=1'));
    expect(ids(filtered.result)).toEqual([8112]);
    // The summaries are index entries; only the page's certificate is read whole.
    expect(fullItemsRead(filtered.details)).toBeLessThanOrEqual(2);
  });

  it('refuses a listing no index answers past CERTIFICATE_LIST_MAX_READ or CERTIFICATE_LIST_READ_MS, saying how to narrow it', async () => {
    process.env.CERTIFICATE_LIST_MAX_READ = '5';
    const broad = await list('?domainName:like=site*');
    expect(broad.status).toBe(400);
    expect(broad.body.type).toBe('ValidationError');
    expect(broad.body.message).toContain('more than 5 certificates');
    expect(broad.body.message).toContain('total=false');
    // Without the count the first page is found within the bound.
    expect(ids(await list('?domainName:like=site*&total=false&limit=2'))).toEqual([8112, 8111]);
    delete process.env.CERTIFICATE_LIST_MAX_READ;
    process.env.CERTIFICATE_LIST_READ_MS = '0';
    const slow = await list('?q=nothing-matches&limit=1&total=false');
    expect(slow.status).toBe(400);
    expect(slow.body.message).toContain('time');
    process.env.CERTIFICATE_LIST_MAX_COUNT = '5';
    const counted = await list('?limit=1');
    expect(counted.status).toBe(400);
    expect(counted.body.message).toContain('total=false');
    expect(ids(await list('?limit=1&total=false'))).toEqual([8112]);
  });
});

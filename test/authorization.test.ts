import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../shared/auth/api-keys.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { putTemplate } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import { routes } from '../shared/routes.ts';
import { type ApiResponse, call, limitedKey, otherKey } from './support/api.ts';
import { makeCsr } from './support/csr.ts';
import {
  exampleParameters,
  exampleSample,
  fillPath,
  foreignObjects,
  ownedParameter,
  ownershipExceptions,
  sendSample,
} from './support/route-samples.ts';
import { changedKeys, snapshotTable } from './support/table-writes.ts';
import { processesOf, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Object-level authorization (contract section 1): every endpoint against an object of another
 * customer is refused, and the refusal is byte for byte the answer for an object that does not
 * exist (same status, headers, type and message), apart from the request id and the identifier
 * itself. Caller: demo (demo-key); the other customer: other (other-key).
 */

/** An answer with the request id and the object's identifier taken out, for a byte-for-byte comparison. */
function shape(res: ApiResponse, identifier: string): { status: number; headers: Record<string, string>; raw: string } {
  const { 'x-request-id': requestId, ...headers } = res.headers;
  const raw = res.raw
    .split(requestId as string)
    .join('<requestId>')
    .split(identifier)
    .join('<identifier>');
  return { status: res.status, headers, raw };
}

/** Asserts that the foreign and the missing object answer alike, and that both are refusals. */
function expectAlike(foreign: ApiResponse, foreignId: string, missing: ApiResponse, missingId: string, status: number, type: string) {
  expect(foreign.status).toBe(status);
  expect(foreign.body.type).toBe(type);
  expect(shape(foreign, foreignId)).toEqual(shape(missing, missingId));
}

const transferBody = { customer: 'demo', registrant: 'demo-registrant', authcode: 'COM-TRANSFER-2026' };
const csr = makeCsr({ cn: 'www.demo-shop.nl' });

beforeAll(async () => {
  await putTemplate({
    customer: 'other',
    name: 'other-template',
    hostMaster: 'hostmaster@other-webservices.example',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 3600,
    records: [],
    createdDate: '2024-05-15T15:00:00Z',
  });
});

describe("object-level authorization matrix: another customer's object answers like a missing one", () => {
  it("GET zone: another customer's domain (404 ObjectDoesNotExist)", async () => {
    expectAlike(
      await call('GET', '/v2/domains/other-site.com/zone'),
      'other-site.com',
      await call('GET', '/v2/domains/no-such-name.com/zone'),
      'no-such-name.com',
      404,
      'ObjectDoesNotExist',
    );
    // The same with the zone-file representation and a conditional request.
    const headers = { Accept: 'text/dns', 'If-None-Match': '*' };
    expectAlike(
      await call('GET', '/v2/domains/other-site.com/zone', { headers }),
      'other-site.com',
      await call('GET', '/v2/domains/no-such-name.com/zone', { headers }),
      'no-such-name.com',
      404,
      'ObjectDoesNotExist',
    );
  });

  it("the zone API: another customer's zone (404 ObjectDoesNotExist) on read, update, delete and a domain's zone update, and nothing is written", async () => {
    const before = await snapshotTable();
    // other-site.com is zone 103 of customer other.
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['POST', '/update', { ttl: 7200 }],
      ['POST', '/update', { records: [] }],
      ['DELETE', '', undefined],
    ] as const) {
      const options = body ? { body, headers: { 'If-Match': '*', 'Idempotency-Key': `zone-authz-${method}-${suffix}` } } : {};
      expectAlike(
        await call(method, `/v2/dns/zones/103${suffix}`, options),
        '103',
        await call(method, `/v2/dns/zones/999999${suffix}`, options),
        '999999',
        404,
        'ObjectDoesNotExist',
      );
    }
    expectAlike(
      await call('POST', '/v2/domains/other-site.com/zone/update', { body: { ttl: 7200 } }),
      'other-site.com',
      await call('POST', '/v2/domains/no-such-name.com/zone/update', { body: { ttl: 7200 } }),
      'no-such-name.com',
      404,
      'ObjectDoesNotExist',
    );
    // Never listed, whatever the filter.
    for (const query of ['', '?name=other-site.com', '?q=other', '?id=103', '?export=true']) {
      const listed = await call('GET', `/v2/dns/zones${query}`);
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body.entities)).not.toContain('other-site.com');
    }
    // Another customer's template is not the caller's to create a zone from.
    const fromTheirs = await call('POST', '/v2/dns/zones', { body: { name: 'authz-zone.nl', template: 'other-template' } });
    expect(fromTheirs.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Template' });
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    expect((await call('GET', '/v2/dns/zones/103', { key: otherKey })).body.ttl).toBe(3600);
  });

  it("GET domain and POST update: another customer's domain (404 ObjectDoesNotExist), quote or not, and nothing is written", async () => {
    expectAlike(
      await call('GET', '/v2/domains/other-site.com?fields=authcode'),
      'other-site.com',
      await call('GET', '/v2/domains/no-such-name.com?fields=authcode'),
      'no-such-name.com',
      404,
      'ObjectDoesNotExist',
    );
    const before = await snapshotTable();
    for (const quote of ['true', 'false']) {
      expectAlike(
        await call('POST', `/v2/domains/other-site.com/update?quote=${quote}`, { body: { authcode: '' } }),
        'other-site.com',
        await call('POST', `/v2/domains/no-such-name.com/update?quote=${quote}`, { body: { authcode: '' } }),
        'no-such-name.com',
        404,
        'ObjectDoesNotExist',
      );
    }
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    const listed = await call('GET', '/v2/domains?export=true&domainName=other-site.com');
    expect(listed.body.entities).toEqual([]);
  });

  it("GET process info: another customer's process (404 ObjectDoesNotExist)", async () => {
    expectAlike(
      await call('GET', '/v2/processes/601/info'),
      '601',
      await call('GET', '/v2/processes/999999/info'),
      '999999',
      404,
      'ObjectDoesNotExist',
    );
  });

  it("GET process: another customer's process, whole or some fields (404 ObjectDoesNotExist)", async () => {
    for (const query of ['', '?fields=id,status']) {
      expectAlike(
        await call('GET', `/v2/processes/601${query}`),
        '601',
        await call('GET', `/v2/processes/999999${query}`),
        '999999',
        404,
        'ObjectDoesNotExist',
      );
    }
  });

  it("GET processes: another customer's processes are never listed, whatever the filter or index", async () => {
    for (const filter of [
      'identifier=blog.other-site.com',
      'status=RUNNING&type=certificate&identifier:like=*other*',
      'q=other',
      'detailStatus=SSL_REQUIRES_ATTENTION&identifier=blog.other-site.com',
    ]) {
      const res = await call('GET', `/v2/processes?${filter}&total=true`);
      expect(res.status).toBe(200);
      expect(res.body.entities.map((p: { customer: string }) => p.customer).filter((c: string) => c !== 'demo')).toEqual([]);
      expect(res.raw).not.toContain('blog.other-site.com');
    }
    const theirs = await call('GET', '/v2/processes?identifier=blog.other-site.com', { key: otherKey });
    expect(theirs.body.entities.map((p: { id: number }) => p.id)).toEqual([601]);
  });

  it("DELETE process and POST resend: another customer's process (404 ObjectDoesNotExist), and nothing is written", async () => {
    const before = await snapshotTable();
    expectAlike(
      await call('DELETE', '/v2/processes/601'),
      '601',
      await call('DELETE', '/v2/processes/999999'),
      '999999',
      404,
      'ObjectDoesNotExist',
    );
    expectAlike(
      await call('POST', '/v2/processes/601/resend'),
      '601',
      await call('POST', '/v2/processes/999999/resend'),
      '999999',
      404,
      'ObjectDoesNotExist',
    );
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    expect((await call('GET', '/v2/processes/601', { key: otherKey })).body.status).toBe('RUNNING');
  });

  it('GET TLD info and GET provider: registry configuration, the same for every customer', async () => {
    for (const path of ['/v2/tlds/co.uk/info', '/v2/providers/sidn', '/v2/providers/REGISTRY/sidn']) {
      const mine = await call('GET', path);
      const theirs = await call('GET', path, { key: otherKey });
      expect(mine.status).toBe(200);
      expect(theirs.raw).toBe(mine.raw);
    }
  });

  it("POST renew: another customer's certificate, quote or not (404 ObjectDoesNotExist), and nothing is written", async () => {
    for (const query of ['', '?quote=true']) {
      const body = { period: 12, csr };
      expectAlike(
        await call('POST', `/v2/ssl/certificates/2001/renew${query}`, { body }),
        '2001',
        await call('POST', `/v2/ssl/certificates/999999/renew${query}`, { body }),
        '999999',
        404,
        'ObjectDoesNotExist',
      );
    }
    const other = await call('GET', '/v2/processes/601/info', { key: otherKey });
    expect(other.status).toBe(200);
    // Still only its own: the request that issued 2001, and 601.
    expect((await processesOf('other')).map((p) => p.id)).toEqual([201, 601]);
  });

  it("GET price list: another customer's list (403 AuthorizationError, as for an unknown customer)", async () => {
    expectAlike(
      await call('GET', '/v2/customers/other/pricelist'),
      'other',
      await call('GET', '/v2/customers/nobody-here/pricelist'),
      'nobody-here',
      403,
      'AuthorizationError',
    );
    expectAlike(
      await call('GET', '/v2/customers/other/pricelist?currency=EUR'),
      'other',
      await call('GET', '/v2/customers/nobody-here/pricelist?currency=EUR'),
      'nobody-here',
      403,
      'AuthorizationError',
    );
  });

  it('GET provider info: registry metadata is shared configuration, the same for every customer', async () => {
    const mine = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    const theirs = await call('GET', '/v2/providers/REGISTRY/sidn/info', { key: otherKey });
    expect(mine.status).toBe(200);
    expect(theirs.raw).toBe(mine.raw);
  });

  it('POST transfer: another customer in the body (403 AuthorizationError, as for an unknown customer)', async () => {
    expectAlike(
      await transfer('transfer-wait.com', { ...transferBody, customer: 'other' }),
      'other',
      await transfer('transfer-wait.com', { ...transferBody, customer: 'nobody-here' }),
      'nobody-here',
      403,
      'AuthorizationError',
    );
  });

  it("POST transfer: another customer's contact as registrant or in contacts (400 ObjectDoesNotExist)", async () => {
    for (const quote of [false, true]) {
      expectAlike(
        await transfer('transfer-wait.com', { ...transferBody, registrant: 'other-registrant' }, { quote }),
        'other-registrant',
        await transfer('transfer-wait.com', { ...transferBody, registrant: 'nobody-contact' }, { quote }),
        'nobody-contact',
        400,
        'ObjectDoesNotExist',
      );
      expectAlike(
        await transfer('transfer-wait.com', { ...transferBody, contacts: [{ role: 'TECH', handle: 'other-registrant' }] }, { quote }),
        'other-registrant',
        await transfer('transfer-wait.com', { ...transferBody, contacts: [{ role: 'TECH', handle: 'nobody-contact' }] }, { quote }),
        'nobody-contact',
        400,
        'ObjectDoesNotExist',
      );
    }
  });

  it("POST transfer: another customer's zone template (400 ObjectDoesNotExist)", async () => {
    expectAlike(
      await transfer('transfer-wait.com', { ...transferBody, zone: { template: 'other-template' } }),
      'other-template',
      await transfer('transfer-wait.com', { ...transferBody, zone: { template: 'nobody-template' } }),
      'nobody-template',
      400,
      'ObjectDoesNotExist',
    );
  });

  it('POST transfer: a domain another customer holds or is transferring answers exactly like a registry lock', async () => {
    const locked = await transfer('transfer-locked.com', transferBody);
    expectAlike(
      await transfer('other-site.com', { ...transferBody, authcode: 'X-1' }),
      'other-site.com',
      locked,
      'transfer-locked.com',
      400,
      'ObjectStatusProhibitsOperation',
    );
    // Another customer starts a transfer; demo then asks for the same name.
    await sandboxDomain('contested.com');
    const theirs = await transfer(
      'contested.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    expect(theirs.status).toBe(202);
    expectAlike(
      await transfer('contested.com', { ...transferBody, authcode: 'TEST-CODE' }),
      'contested.com',
      locked,
      'transfer-locked.com',
      400,
      'ObjectStatusProhibitsOperation',
    );
    // The owner of the pending transfer is told so.
    const again = await transfer(
      'contested.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    expect(again.body.message).toBe('A transfer of contested.com is already pending.');
  });

  it("POST transfer: another customer's process is not visible through its transfer's process id", async () => {
    await sandboxDomain('theirs-only.com');
    const theirs = await transfer(
      'theirs-only.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    const id = String(theirs.body.processId);
    expectAlike(
      await call('GET', `/v2/processes/${id}/info`),
      id,
      await call('GET', '/v2/processes/999998/info'),
      '999998',
      404,
      'ObjectDoesNotExist',
    );
  });

  it("an Idempotency-Key is the caller's own: another customer with the same key gets its own answer, never a replay", async () => {
    await sandboxDomain('shared-key-a.com');
    await sandboxDomain('shared-key-b.com');
    const headers = { 'Idempotency-Key': 'the-same-key' };
    const mine = await transfer('shared-key-a.com', { ...transferBody, authcode: 'TEST-CODE' }, { headers });
    const theirs = await transfer(
      'shared-key-b.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey, headers },
    );
    expect(mine.status).toBe(202);
    expect(theirs.status).toBe(202);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.processId).not.toBe(mine.body.processId);
  });

  it("a keyed replay is its user's own: Bob, without DESIGNATED_AGENT, sending Alice's key and body gets 403, not her 202", async () => {
    await sandboxDomain('alice-agent.com');
    const headers = { 'Idempotency-Key': 'alice-agent-key' };
    const agentBody = { ...transferBody, authcode: 'TEST-CODE', designatedAgent: 'NEW' };
    const alices = await transfer('alice-agent.com', agentBody, { headers });
    expect(alices.status).toBe(202);
    const bobs = await transfer('alice-agent.com', agentBody, { key: limitedKey, headers });
    expect(bobs.status).toBe(403);
    expect(bobs.body).toEqual({
      type: 'AuthorizationError',
      message: 'designatedAgent NEW requires the DESIGNATED_AGENT permission.',
      requestId: bobs.headers['x-request-id'],
    });
    expect(bobs.headers['x-process-id']).toBeUndefined();
    expect(bobs.headers['idempotent-replayed']).toBeUndefined();
    expect((await processesOf('demo')).filter((p) => p.identifier === 'alice-agent.com')).toHaveLength(1);
  });

  it("a key is scoped per user: Bob's request under Alice's key is his own, run for him, never a replay or a mismatch of hers", async () => {
    await sandboxDomain('alice-own.com');
    await sandboxDomain('bob-own.com');
    const headers = { 'Idempotency-Key': 'one-key-two-users' };
    const alices = await transfer('alice-own.com', { ...transferBody, authcode: 'TEST-CODE' }, { headers });
    const bobs = await transfer('bob-own.com', { ...transferBody, authcode: 'TEST-CODE' }, { key: limitedKey, headers });
    expect([alices.status, bobs.status]).toEqual([202, 202]);
    expect(bobs.headers['idempotent-replayed']).toBeUndefined();
    expect(bobs.body.domainName).toBe('bob-own.com');
    const processes = await processesOf('demo');
    expect(processes.find((p) => p.id === bobs.body.processId)?.user).toBe('bob');
  });

  it('authorizes before replaying: the same user through a key without DESIGNATED_AGENT gets 403 for a replay of a designated-agent transfer', async () => {
    const aliceLimited = generateApiKey();
    await putApiKey({
      keyHash: hashApiKey(aliceLimited),
      customer: 'demo',
      user: 'alice',
      permissions: [],
      createdDate: '2026-01-01T00:00:00Z',
    });
    await sandboxDomain('alice-two-keys.com');
    const headers = { 'Idempotency-Key': 'alice-two-keys' };
    const agentBody = { ...transferBody, authcode: 'TEST-CODE', designatedAgent: 'BOTH' };
    expect((await transfer('alice-two-keys.com', agentBody, { headers })).status).toBe(202);
    const replay = await transfer('alice-two-keys.com', agentBody, { key: aliceLimited, headers });
    expect(replay.status).toBe(403);
    expect(replay.body.type).toBe('AuthorizationError');
    expect(replay.headers['idempotent-replayed']).toBeUndefined();
  });

  it("renew never writes DCV records into another customer's zone, and its answer does not reveal that zone", async () => {
    const before = await getZone('other-site.com');
    const names = (name: string) => ({
      period: 12,
      csr: makeCsr({ cn: 'demo-shop.nl', san: ['demo-shop.nl', name] }),
      san: ['demo-shop.nl', name],
    });
    const foreign = await call('POST', '/v2/ssl/certificates/1002/renew?quote=true', { body: names('other-site.com') });
    const missing = await call('POST', '/v2/ssl/certificates/1002/renew?quote=true', { body: names('no-such-name.com') });
    expect(foreign.status).toBe(200);
    const entry = (res: ApiResponse, name: string) => res.body.validations.dcv.find((d: { commonName: string }) => d.commonName === name);
    // The DNS record name and contents are derived from the name itself; everything else is the same.
    const strip = ({ commonName: _, dnsRecord, dnsContents, ...rest }: Record<string, unknown>) => ({
      ...rest,
      dnsRecord: typeof dnsRecord,
      dnsContents: typeof dnsContents,
    });
    expect(strip(entry(foreign, 'other-site.com'))).toEqual(strip(entry(missing, 'no-such-name.com')));
    expect(entry(foreign, 'other-site.com').caaRecordStatus).toBe('UNKNOWN');
    const renewed = await call('POST', '/v2/ssl/certificates/1002/renew', { body: names('other-site.com') });
    expect(renewed.status).toBe(202);
    expect(await getZone('other-site.com')).toEqual(before);
  });
  it("GET transfer info: another customer's transfer of the name (404 ObjectDoesNotExist)", async () => {
    await sandboxDomain('their-transfer-info.com');
    const theirs = await transfer(
      'their-transfer-info.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    const id = String(theirs.body.processId);
    expectAlike(
      await call('GET', `/v2/domains/their-transfer-info.com/transfer/${id}`),
      id,
      await call('GET', '/v2/domains/their-transfer-info.com/transfer/999997'),
      '999997',
      404,
      'ObjectDoesNotExist',
    );
  });

  it("GET certificate and its download: another customer's certificate (404 ObjectDoesNotExist)", async () => {
    for (const suffix of ['', '/download', '/download?format=CRT', '/download?format=CSR']) {
      expectAlike(
        await call('GET', `/v2/ssl/certificates/2001${suffix}`),
        '2001',
        await call('GET', `/v2/ssl/certificates/999996${suffix}`),
        '999996',
        404,
        'ObjectDoesNotExist',
      );
    }
  });

  it("GET a name's latest transfer: another customer's transfer of the name (404 ObjectDoesNotExist)", async () => {
    await sandboxDomain('their-latest-transfer.com');
    const theirs = await transfer(
      'their-latest-transfer.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    expect(theirs.status).toBe(202);
    expectAlike(
      await call('GET', '/v2/domains/their-latest-transfer.com/transfer'),
      'their-latest-transfer.com',
      await call('GET', '/v2/domains/no-latest-transfer.com/transfer'),
      'no-latest-transfer.com',
      404,
      'ObjectDoesNotExist',
    );
  });
  it("contacts: another customer's contact, read or written by any route (404 ObjectDoesNotExist), and nothing is written", async () => {
    const before = await snapshotTable();
    const theirs = '/v2/customers/other/contacts/other-registrant';
    const none = '/v2/customers/other/contacts/no-such-contact';
    const requests: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['GET', '?fields=handle,email', undefined],
      ['POST', '/update', { city: 'Oakland' }],
      ['DELETE', '', undefined],
      ['POST', '/validate', { categories: ['General'] }],
      ['POST', '/split', { newHandle: 'stolen-copy' }],
      ['POST', '/sidn', { properties: { legalForm: 'BV' } }],
      ['POST', '/sidn/update', { properties: { legalForm: 'NV' } }],
    ];
    for (const [method, tail, body] of requests) {
      const options = body === undefined ? {} : { body };
      expectAlike(
        await call(method, `${theirs}${tail}`, options),
        'other-registrant',
        await call(method, `${none}${tail}`, options),
        'no-such-contact',
        404,
        'ObjectDoesNotExist',
      );
    }
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    expect((await call('GET', theirs, { key: otherKey })).body.city).toBe('San Francisco');
  });

  it("contacts: another customer's address book cannot be listed or written to (403 AuthorizationError, as for an unknown customer)", async () => {
    const body = {
      name: 'X',
      addressLine: ['Y 1'],
      postalCode: '1',
      city: 'Z',
      country: 'US',
      email: 'x@example.com',
      voice: '+1.5555555555',
    };
    expectAlike(
      await call('GET', '/v2/customers/other/contacts'),
      'other',
      await call('GET', '/v2/customers/nobody-at-all/contacts'),
      'nobody-at-all',
      403,
      'AuthorizationError',
    );
    expectAlike(
      await call('POST', '/v2/customers/other/contacts/planted', { body }),
      'other',
      await call('POST', '/v2/customers/nobody-at-all/contacts/planted', { body }),
      'nobody-at-all',
      403,
      'AuthorizationError',
    );
  });

  it('GET providers, SSL products and exchange rates: configuration, the same for every customer', async () => {
    for (const path of [
      '/v2/providers',
      '/v2/ssl/products',
      '/v2/ssl/products/ssl_sectigo_ov',
      '/v2/exchangerates/USD',
      '/v2/exchangerates',
    ]) {
      const mine = await call('GET', path);
      const theirs = await call('GET', path, { key: otherKey });
      expect(mine.status).toBe(200);
      expect(theirs.raw).toBe(mine.raw);
    }
  });
});

/**
 * The same, from the route table: every route whose path names an object of a customer (its
 * customer, process, certificate or domain: `foreignObjects`) answers another customer's object
 * exactly like a missing one and writes nothing; every other route answers the same to every
 * customer. A new route is covered without an edit here; a route whose answer is the caller's own
 * by design, or whose path names no owned object, says so once in `ownershipExceptions`.
 */
describe('every route of the table: ownership from its path', () => {
  const checked = routes.filter((r) => !(r.id in ownershipExceptions));

  it.each(checked.filter((r) => ownedParameter(r) !== undefined).map((r) => [r.id, r] as const))(
    "%s: another customer's object answers like a missing one, and nothing is written",
    async (_id, route) => {
      const owned = ownedParameter(route) as string;
      const { foreign, missing } = foreignObjects[owned] as { foreign: string; missing: string };
      const example = await exampleSample(route);
      const values = await exampleParameters(route);
      const query = example.url.includes('?') ? example.url.slice(example.url.indexOf('?')) : '';
      const at = (value: string) => ({ ...example, url: `${fillPath(route, { ...values, [owned]: value })}${query}` });
      const before = await snapshotTable();
      const theirs = await sendSample(at(foreign));
      const none = await sendSample(at(missing));
      expect(theirs.status, theirs.raw).toBeGreaterThanOrEqual(400);
      expect(theirs.status, theirs.raw).toBeLessThan(500);
      expect(shape(theirs, encodeURIComponent(foreign))).toEqual(shape(none, encodeURIComponent(missing)));
      expect(changedKeys(before, await snapshotTable())).toEqual([]);
    },
  );

  it.each(checked.filter((r) => ownedParameter(r) === undefined && r.method === 'GET').map((r) => [r.id, r] as const))(
    '%s: names no object of a customer, and answers every customer alike',
    async (_id, route) => {
      const example = await exampleSample(route);
      const mine = await sendSample(example);
      const theirs = await sendSample(example, otherKey);
      expect(mine.status, mine.raw).toBe(200);
      expect(theirs.raw).toBe(mine.raw);
    },
  );

  it('covers every route, or names why a test of its own does', () => {
    const writes = routes.filter((r) => r.method !== 'GET' && ownedParameter(r) === undefined && !(r.id in ownershipExceptions));
    expect(
      writes.map((r) => r.id),
      'a write whose path names no owned object: add its foreign object to foreignObjects or its reason to ownershipExceptions',
    ).toEqual([]);
    for (const id of Object.keys(ownershipExceptions)) expect(routes.map((r) => r.id)).toContain(id);
  });
});

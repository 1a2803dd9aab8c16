import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { listDueZones } from '../shared/db/repositories/zone-premium.ts';
import { getZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { PowerDnsProvider } from '../shared/dns/powerdns.ts';
import { premiumPaidUntil } from '../shared/model/zone.ts';
import { streamConsumers } from '../shared/routes.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { compareWithDns, resolverOf } from './support/powerdns.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// The zone API (issue 37) through the real handlers, against a real PowerDNS Authoritative fed by
// the table's stream and the zone-sync consumer, as `npm start` runs them: every write is checked
// on PowerDNS's DNS port, not only in the table.

let pdns: LocalPowerDns;
let feeder: StreamFeeder;
let resolver: ReturnType<typeof resolverOf>;
let direct: PowerDnsProvider;

beforeAll(async () => {
  pdns = await startPowerDns();
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
  resolver = resolverOf(pdns);
  direct = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey });
  feeder = await startStreamFeeder({
    tableName: tableName(),
    consumers: streamConsumers,
    pollIntervalMs: 50,
    retryDelayMs: 100,
    log: () => {},
  });
  await feeder.drain(60_000);
}, 120_000);

afterAll(async () => {
  await feeder?.stop();
  await pdns?.stop();
  for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[name];
});

/** Waits until `check` holds (the stream delivers within a second), polling every 50 ms. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every record set of the view equals what PowerDNS answers on its DNS port (once the sync took the change). */
async function expectOnDns(view: { name: string; defaultRecords: unknown[]; records: unknown[] }): Promise<void> {
  await feeder.drain();
  const compared = await compareWithDns(resolver, view as Parameters<typeof compareWithDns>[1]);
  expect(compared.length).toBeGreaterThan(1);
  for (const set of compared) expect(set.dns, set.key).toEqual(set.view);
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}, key?: string) =>
  call('POST', url, { body, headers, ...(key ? { key } : {}) });

const a = (name: string, content: string, ttl = 300) => ({ name, type: 'A', content, ttl });

/** The error body without its request id: what two answers must share to be alike. */
const errorOf = (res: ApiResponse) => {
  const { requestId: _, ...rest } = res.body as Record<string, unknown>;
  return { status: res.status, ...rest };
};

async function createZone(name: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  const res = await post('/v2/dns/zones', {
    name,
    records: [a(name, '192.0.2.80', 3600), { name: `www.${name}`, type: 'CNAME', content: name, ttl: 3600 }],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

describe('create, read, list', () => {
  it('creates a zone (201, the SDK shape), serves it on DNS, and reads it back by id with the same ETag version', async () => {
    const res = await createZone('api-create.nl');
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      name: 'api-create.nl',
      customer: 'demo',
      managed: false,
      service: 'BASIC',
      dnssec: false,
      hostMaster: 'hostmaster@api-create.nl',
      refresh: 10800,
      retry: 3600,
      expire: 1209600,
      ttl: 3600,
    });
    expect(res.headers.etag).toBe('"r1"');
    await expectOnDns(res.body);

    const read = await call('GET', `/v2/dns/zones/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.etag).toMatch(/^"r1\.[A-Za-z0-9_-]{27}"$/);
    const { dns, ...view } = read.body;
    expect(view).toEqual(res.body);
    expect(dns).toMatchObject({ provider: 'powerdns', status: 'served' });
  });

  it("answers another customer's zone exactly as a missing one, on read, update and delete", async () => {
    const theirs = await createZone('api-theirs.nl');
    const id = theirs.body.id as number;
    const missing = 987654321;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['POST', '/update', { ttl: 7200 }],
      ['DELETE', '', undefined],
    ] as const) {
      const other = await call(method, `/v2/dns/zones/${id}${suffix}`, { key: otherKey, ...(body ? { body } : {}) });
      const none = await call(method, `/v2/dns/zones/${missing}${suffix}`, { key: otherKey, ...(body ? { body } : {}) });
      expect(other.status).toBe(404);
      // The same answer but for the id it names.
      expect(JSON.stringify(errorOf(other)).replaceAll(String(id), 'ID')).toBe(
        JSON.stringify(errorOf(none)).replaceAll(String(missing), 'ID'),
      );
      expect(other.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Zone', identifier: String(id) });
    }
    // Still the owner's, unchanged.
    expect((await call('GET', `/v2/dns/zones/${id}`)).body.ttl).toBe(3600);
  });

  it("lists the caller's zones by name with the usual semantics and filters, never another customer's", async () => {
    const all = await call('GET', '/v2/dns/zones?limit=100');
    expect(all.status).toBe(200);
    const names = (all.body.entities as { name: string }[]).map((z) => z.name);
    expect(names).toContain('demo-shop.nl');
    expect(names).not.toContain('other-site.com');
    expect(names).toEqual([...names].sort());
    expect(all.body.pagination).toEqual({ limit: 100, offset: 0, total: names.length });
    expect(all.body.entities[0].records).toBeUndefined();

    const premium = await call('GET', '/v2/dns/zones?service=PREMIUM');
    expect((premium.body.entities as { name: string }[]).map((z) => z.name)).toEqual(['demo-secure.com']);
    expect(premium.body.pagination.total).toBe(1);
    const signed = await call('GET', '/v2/dns/zones?dnssec=true&fields=id,name');
    expect(signed.body.entities).toEqual([{ id: 102, name: 'demo-secure.com' }]);
    const linked = await call('GET', '/v2/dns/zones?template=demo-template&managed=true');
    expect((linked.body.entities as { name: string }[]).map((z) => z.name)).toEqual(['demo-shop.nl']);
    const like = await call('GET', '/v2/dns/zones?name:like=demo-*&order=-name&total=false');
    expect((like.body.entities as { name: string }[]).map((z) => z.name)).toEqual(['demo-shop.nl', 'demo-secure.com']);
    expect(like.body.pagination.total).toBeUndefined();
    const page = await call('GET', '/v2/dns/zones?limit=1&offset=1');
    expect(page.body.entities).toHaveLength(1);
    expect(page.body.entities[0].name).toBe(names[1]);
    const count = await call('GET', '/v2/dns/zones?limit=0');
    expect(count.body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: names.length } });

    const bad = await call('GET', '/v2/dns/zones?service=GOLD&colour=red');
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe('ConstraintViolationException');
    expect((bad.body.violations as { field: string }[]).map((v) => v.field).sort()).toEqual(['colour', 'service']);

    const theirs = await call('GET', '/v2/dns/zones?limit=100', { key: otherKey });
    expect((theirs.body.entities as { name: string }[]).map((z) => z.name)).toContain('other-site.com');
    expect((theirs.body.entities as { name: string }[]).map((z) => z.name)).not.toContain('demo-shop.nl');
  });

  it('refuses a name that has a zone, and replays a create with its Idempotency-Key', async () => {
    const key = 'zone-create-replay-1';
    const first = await post('/v2/dns/zones', { name: 'api-replay.nl' }, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await post('/v2/dns/zones', { name: 'api-replay.nl' }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const twice = await post('/v2/dns/zones', { name: 'api-replay.nl' });
    expect(twice.status).toBe(400);
    expect(twice.body.type).toBe('ObjectExists');
    // Another account's domain: refused alike.
    const taken = await post('/v2/dns/zones', { name: 'other-site.com' });
    expect(errorOf(taken)).toMatchObject({ status: 400, type: 'ObjectExists' });
    const forOther = await post('/v2/dns/zones', { name: 'api-for-other.nl', customer: 'other' });
    expect(forOther.status).toBe(403);
  });
});

describe('update', () => {
  it('replaces the whole record set, raises the SOA serial on every change (two in one second too), and serves each on DNS', async () => {
    const created = await createZone('api-update.nl');
    const id = created.body.id as number;
    const serialOf = async () => (await resolver.resolveSoa('api-update.nl')).serial;
    await feeder.drain();
    const before = await serialOf();
    const first = await post(`/v2/dns/zones/${id}/update`, {
      records: [
        a('api-update.nl', '192.0.2.81'),
        { name: 'api-update.nl', type: 'MX', content: 'mail.api-update.nl.', ttl: 300, prio: 10 },
        a('mail.api-update.nl', '192.0.2.82'),
        { name: 'api-update.nl', type: 'TXT', content: `v=spf1 ${'ip4:192.0.2.1 '.repeat(30)}-all`, ttl: 300 },
      ],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.etag).toBe('"r2"');
    const second = await post(`/v2/dns/zones/${id}/update`, {
      records: [a('api-update.nl', '192.0.2.83'), a('new.api-update.nl', '192.0.2.84')],
    });
    expect(second.status).toBe(200);
    expect(second.headers.etag).toBe('"r3"');
    const soa = (r: ApiResponse) => Number((r.body.defaultRecords[0].content as string).split(' ')[2]);
    expect(soa(first)).toBeGreaterThan(before);
    expect(soa(second)).toBeGreaterThan(soa(first));
    await expectOnDns(second.body);
    expect(await serialOf()).toBe(soa(second));
    expect(await resolver.resolve4('new.api-update.nl')).toEqual(['192.0.2.84']);
    await expect(resolver.resolveMx('api-update.nl')).rejects.toMatchObject({ code: 'ENODATA' });
    // What is left out stays: settings only.
    const settings = await post(`/v2/dns/zones/${id}/update`, { ttl: 7200, refresh: 7200 });
    expect(settings.body).toMatchObject({ ttl: 7200, refresh: 7200, records: second.body.records });
    await expectOnDns(settings.body);
  });

  it('refuses a second write over the same read (If-Match), and lets the last write win without it', async () => {
    const created = await createZone('api-conflict.nl');
    const id = created.body.id as number;
    const read = await call('GET', `/v2/dns/zones/${id}`);
    const etag = read.headers.etag as string;
    const mine = await post(`/v2/dns/zones/${id}/update`, { records: [a('api-conflict.nl', '192.0.2.91')] }, { 'If-Match': etag });
    expect(mine.status).toBe(200);
    const theirs = await post(`/v2/dns/zones/${id}/update`, { records: [a('api-conflict.nl', '192.0.2.92')] }, { 'If-Match': etag });
    expect(theirs.status).toBe(412);
    expect(theirs.body).toMatchObject({ type: 'PreconditionFailed', requestId: expect.any(String) });
    expect(theirs.body.message).toMatch(/changed since it was read/);
    // The answer's tag is the next read's version: a chain of conditional writes.
    const next = await post(
      `/v2/dns/zones/${id}/update`,
      { records: [a('api-conflict.nl', '192.0.2.93')] },
      { 'If-Match': mine.headers.etag as string },
    );
    expect(next.status).toBe(200);
    const unconditional = await post(`/v2/dns/zones/${id}/update`, { records: [a('api-conflict.nl', '192.0.2.94')] });
    expect(unconditional.status).toBe(200);
    await expectOnDns(unconditional.body);
    expect(await resolver.resolve4('api-conflict.nl')).toEqual(['192.0.2.94']);
    // A tag that names no version of ours matches nothing; `*` matches any.
    expect((await post(`/v2/dns/zones/${id}/update`, { ttl: 3600 }, { 'If-Match': '"abc"' })).status).toBe(412);
    expect((await post(`/v2/dns/zones/${id}/update`, { ttl: 3600 }, { 'If-Match': '*' })).status).toBe(200);
  });

  it('writes one of two concurrent conditional edits and refuses the other, never a mix', async () => {
    const created = await createZone('api-race.nl');
    const id = created.body.id as number;
    const etag = (await call('GET', `/v2/dns/zones/${id}`)).headers.etag as string;
    const edits = ['192.0.2.101', '192.0.2.102', '192.0.2.103'].map((ip) =>
      post(
        `/v2/dns/zones/${id}/update`,
        { records: [a('api-race.nl', ip), a(`x${ip.split('.')[3]}.api-race.nl`, ip)] },
        { 'If-Match': etag },
      ),
    );
    const answers = await Promise.all(edits);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412]);
    const won = answers.find((r) => r.status === 200) as ApiResponse;
    const now = await call('GET', `/v2/dns/zones/${id}`);
    expect(now.body.records).toEqual(won.body.records);
    expect((await getZoneHead('api-race.nl', true))?.revision).toBe(2);
    await expectOnDns(now.body);
  });

  it('keeps the template-linked records of a linked zone until the link is broken, and the DCV and ACME records always', async () => {
    const zone = (await call('GET', '/v2/domains/demo-shop.nl/zone')).body;
    // An ACME dns-01 challenge the certificate authority put at the provider (as shared/certificates/acme-authority.ts does).
    await feeder.drain();
    await direct.applyChanges('demo-shop.nl', [
      { action: 'upsert', recordSet: { name: '_acme-challenge.demo-shop.nl.', type: 'TXT', ttl: 60, values: ['"acme-token-1"'] } },
    ]);
    const own = (zone.records as { name: string; type: string }[]).filter((r) => r.type !== 'A');
    const withoutLinked = await post('/v2/domains/demo-shop.nl/zone/update', { records: own });
    expect(withoutLinked.status).toBe(400);
    expect(withoutLinked.body.type).toBe('ValidationError');
    expect(withoutLinked.body.violations[0].message).toMatch(/A demo-shop\.nl \(192\.0\.2\.10\) is linked to template demo-template/);

    const added = [...zone.records, a('shop.demo-shop.nl', '192.0.2.20')];
    const kept = await post('/v2/domains/demo-shop.nl/zone/update', { records: added });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body).toMatchObject({ template: 'demo-template', link: true });
    await expectOnDns(kept.body);
    expect(await resolver.resolve4('shop.demo-shop.nl')).toEqual(['192.0.2.20']);
    expect(await resolver.resolveTxt('_acme-challenge.demo-shop.nl')).toEqual([['acme-token-1']]);

    const unlinked = await post('/v2/domains/demo-shop.nl/zone/update', {
      link: false,
      records: added.map((r: { name: string; type: string; content: string }) =>
        r.type === 'A' && r.name === 'demo-shop.nl' ? { ...r, content: '192.0.2.11' } : r,
      ),
    });
    expect(unlinked.status, JSON.stringify(unlinked.body)).toBe(200);
    expect(unlinked.body).toMatchObject({ template: 'demo-template', link: false });
    await expectOnDns(unlinked.body);
    expect(await resolver.resolve4('demo-shop.nl')).toEqual(['192.0.2.11']);
    expect(await resolver.resolveTxt('_acme-challenge.demo-shop.nl')).toEqual([['acme-token-1']]);
  });

  it("updates a domain's zone by name with If-Match from GET .../zone, and answers 404 for another customer's domain", async () => {
    const read = await call('GET', '/v2/domains/demo-secure.com/zone');
    const res = await post(
      '/v2/domains/demo-secure.com/zone/update',
      { records: [...read.body.records, a('api.demo-secure.com', '192.0.2.55')] },
      { 'If-Match': read.headers.etag as string },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expectOnDns(res.body);
    const stale = await post('/v2/domains/demo-secure.com/zone/update', { ttl: 600 }, { 'If-Match': read.headers.etag as string });
    expect(stale.status).toBe(412);
    const theirs = await post('/v2/domains/other-site.com/zone/update', { ttl: 600 });
    const unknown = await post('/v2/domains/no-such-domain-here.nl/zone/update', { ttl: 600 });
    expect(theirs.status).toBe(404);
    expect({ ...errorOf(theirs), identifier: 'x', message: 'x' }).toEqual({ ...errorOf(unknown), identifier: 'x', message: 'x' });
  });

  it('refuses bad zones with a 400 naming each record, and changes nothing', async () => {
    const created = await createZone('api-invalid.nl');
    const id = created.body.id as number;
    const res = await post(`/v2/dns/zones/${id}/update`, {
      records: [
        a('www.api-invalid.nl', '192.0.2.1'),
        { name: 'www.api-invalid.nl', type: 'CNAME', content: 'api-invalid.nl', ttl: 300 },
        a('elsewhere.example.com', '192.0.2.2'),
        a('bad.api-invalid.nl', '999.1.2.3'),
        a('short.api-invalid.nl', '192.0.2.3', 5),
        { name: 'api-invalid.nl', type: 'CAA', content: '0 issueeverything "ca.example"', ttl: 300 },
        a('www.api-invalid.nl', '192.0.2.1'),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    const fields = (res.body.violations as { field: string; message: string }[]).map((v) => `${v.field}: ${v.message}`);
    expect(fields).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^records\[1\]: CNAME www\.api-invalid\.nl: a CNAME stands alone/),
        expect.stringMatching(/^records\[2\]: A elsewhere\.example\.com: name: must be api-invalid\.nl or a name below it/),
        expect.stringMatching(/^records\[3\]: A bad\.api-invalid\.nl: content: must be an IPv4 address/),
        expect.stringMatching(/^records\[4\]: A short\.api-invalid\.nl: ttl: a BASIC zone serves TTLs from 300/),
        expect.stringMatching(/^records\[5\]: CAA api-invalid\.nl: content: must be `flags tag value` with a tag of/),
        expect.stringMatching(/^records\[6\]: A www\.api-invalid\.nl: the same record as records\[0\]/),
      ]),
    );
    const after = await call('GET', `/v2/dns/zones/${id}`);
    expect(after.body.records).toEqual(created.body.records);
    expect(after.headers.etag).toMatch(/^"r1\./);
  });
});

describe('delete', () => {
  it('deletes a zone (204): gone from the API at once and from DNS within a second; a managed zone stays', async () => {
    const created = await createZone('api-delete.nl');
    const id = created.body.id as number;
    await expectOnDns(created.body);
    const res = await call('DELETE', `/v2/dns/zones/${id}`, { headers: { 'Idempotency-Key': 'zone-delete-1' } });
    expect(res.status).toBe(204);
    const replay = await call('DELETE', `/v2/dns/zones/${id}`, { headers: { 'Idempotency-Key': 'zone-delete-1' } });
    expect(replay.status).toBe(204);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await call('GET', `/v2/dns/zones/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/v2/dns/zones/${id}`)).status).toBe(404);
    await feeder.drain();
    await eventually(async () => ((await resolver.resolveSoa('api-delete.nl').catch((e) => e.code)) === 'EREFUSED' ? true : undefined));
    expect(await direct.zone('api-delete.nl')).toBeUndefined();

    const managed = await call('DELETE', '/v2/dns/zones/101');
    expect(managed.status).toBe(400);
    expect(managed.body.type).toBe('ObjectStatusProhibitsOperation');
  });
});

describe('PREMIUM zones are charged (dns_premium)', () => {
  const premiumLine = (amount: number) => ({
    product: 'dns_premium',
    action: 'CREATE',
    quantity: 1,
    amount,
    providerName: 'dns',
    refundable: false,
    total: amount,
  });
  /** The caller's processes of one zone name. */
  const processesOf = async (name: string, key?: string) =>
    (await call('GET', `/v2/processes?identifier=${name}`, key ? { key } : {})).body.entities as Record<string, unknown>[];

  it('quotes a PREMIUM create (?quote=true) at the list price and writes nothing; a BASIC one quotes nothing', async () => {
    const quote = await post('/v2/dns/zones?quote=true', { name: 'api-premium-quote.nl', service: 'PREMIUM' });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toEqual({ command: 'CreateDnsZoneCommand', quote: { total: 300, currency: 'EUR', billables: [premiumLine(300)] } });
    const basic = await post('/v2/dns/zones?quote=true', { name: 'api-premium-quote.nl' });
    expect(basic.body).toEqual({ command: 'CreateDnsZoneCommand', quote: { total: 0 } });
    expect(await getZoneHead('api-premium-quote.nl', true)).toBeUndefined();
    expect(await processesOf('api-premium-quote.nl')).toEqual([]);
  });

  it('charges a PREMIUM create without billables (as both clients send it) once, under Idempotency-Key retries, in the caller currency', async () => {
    const headers = { 'Idempotency-Key': 'premium-create-1' };
    const res = await post('/v2/dns/zones', { name: 'api-premium.nl', service: 'PREMIUM' }, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.service).toBe('PREMIUM');
    const processId = res.headers['x-process-id'];
    expect(processId).toMatch(/^\d+$/);
    const replay = await post('/v2/dns/zones', { name: 'api-premium.nl', service: 'PREMIUM' }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-process-id']).toBe(processId);
    const process = await call('GET', `/v2/processes/${processId}`);
    expect(process.body).toMatchObject({
      type: 'dnsZone',
      action: 'create',
      identifier: 'api-premium.nl',
      status: 'COMPLETED',
      billables: [premiumLine(300)],
    });
    expect(await processesOf('api-premium.nl')).toHaveLength(1);
    await expectOnDns(res.body);
    // Paid for a year from its creation, and listed for the expiry job's charge of the next one.
    const paid = (await getZoneHead('api-premium.nl', true))?.zone;
    expect(paid?.paidUntil).toBe(premiumPaidUntil(paid?.createdDate as string));
    expect((await listDueZones(paid?.paidUntil as string, 1000)).due).toContainEqual({
      domainName: 'api-premium.nl',
      dueDate: paid?.paidUntil,
    });

    // The other customer pays its own price, in its own currency (USD).
    const theirs = await post('/v2/dns/zones', { name: 'api-premium-usd.nl', service: 'PREMIUM' }, {}, otherKey);
    expect(theirs.status).toBe(201);
    const usd = await call('GET', `/v2/processes/${theirs.headers['x-process-id']}`, { key: otherKey });
    expect(usd.body.billables).toEqual([premiumLine(350)]);
  });

  it('refuses a stale acknowledged amount with the new quote, and charges nothing when the write is refused', async () => {
    const stale = await post('/v2/dns/zones', {
      name: 'api-premium-stale.nl',
      service: 'PREMIUM',
      billables: [{ product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 100 }],
    });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({
      type: 'BillableAcknowledgmentNeededException',
      quote: { total: 300, billables: [premiumLine(300)] },
    });
    const acknowledged = await post('/v2/dns/zones', {
      name: 'api-premium-stale.nl',
      service: 'PREMIUM',
      billables: stale.body.quote.billables,
    });
    expect(acknowledged.status).toBe(201);
    // Two creates of one name at once: one zone, one charge (the loser's transaction takes its charge with it).
    const racing = await Promise.all([1, 2].map(() => post('/v2/dns/zones', { name: 'api-premium-race.nl', service: 'PREMIUM' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(await processesOf('api-premium-race.nl')).toHaveLength(1);
    // A zone refused by validation charges nothing either.
    const invalid = await post('/v2/dns/zones', {
      name: 'api-premium-bad.nl',
      service: 'PREMIUM',
      records: [a('elsewhere.nl', '192.0.2.1')],
    });
    expect(invalid.status).toBe(400);
    expect(await processesOf('api-premium-bad.nl')).toEqual([]);
  });

  it('charges an update from BASIC to PREMIUM (by id and by domain), never one that keeps it PREMIUM; a settings change keeps the records', async () => {
    const created = await createZone('api-upgrade.nl');
    const id = created.body.id as number;
    const before = await getZoneHead('api-upgrade.nl', true);
    const quote = await post(`/v2/dns/zones/${id}/update?quote=true`, { service: 'PREMIUM' });
    expect(quote.body).toEqual({ command: 'UpdateDnsZoneCommand', quote: { total: 300, currency: 'EUR', billables: [premiumLine(300)] } });
    expect((await getZoneHead('api-upgrade.nl', true))?.revision).toBe(before?.revision);
    const upgraded = await post(`/v2/dns/zones/${id}/update`, { service: 'PREMIUM' });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.service).toBe('PREMIUM');
    const charged = await call('GET', `/v2/processes/${upgraded.headers['x-process-id']}`);
    expect(charged.body).toMatchObject({ type: 'dnsZone', action: 'update', status: 'COMPLETED', billables: [premiumLine(300)] });
    // Settings only: the records' generation is kept (nothing staged or deleted), and the zone is served as changed.
    const after = await getZoneHead('api-upgrade.nl', true);
    expect(after?.generation).toBe(before?.generation);
    const again = await post(`/v2/dns/zones/${id}/update`, { service: 'PREMIUM', ttl: 600 });
    expect(again.status).toBe(200);
    expect(again.headers['x-process-id']).toBeUndefined();
    expect(await processesOf('api-upgrade.nl')).toHaveLength(1);
    await expectOnDns(again.body);
    // Made PREMIUM: paid a year from the update, kept by a write that keeps it PREMIUM, listed for the next year's charge.
    const paidUntil = (await getZoneHead('api-upgrade.nl', true))?.zone.paidUntil;
    expect(paidUntil).toBe(premiumPaidUntil(upgraded.body.updatedDate));
    expect((await listDueZones(paidUntil as string, 1000)).due).toContainEqual({ domainName: 'api-upgrade.nl', dueDate: paidUntil });
    // Back to BASIC: no paid year any more (not refunded); the expiry job drops its stale due entry.
    expect((await post(`/v2/dns/zones/${id}/update`, { service: 'BASIC' })).status).toBe(200);
    expect((await getZoneHead('api-upgrade.nl', true))?.zone.paidUntil).toBeUndefined();

    // The managed zone of a domain, by name: the demo's BASIC zone made PREMIUM is charged the same way.
    const domainQuote = await post('/v2/domains/demo-shop.nl/zone/update?quote=true', { service: 'PREMIUM' });
    expect(domainQuote.body.quote).toEqual({ total: 300, currency: 'EUR', billables: [premiumLine(300)] });
  });

  it('refuses PREMIUM to an account whose price list has no dns_premium price', async () => {
    const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db } = await import('../shared/db/client.ts');
    const { priceItem } = await import('../shared/db/repositories/prices.ts');
    const item = priceItem({
      customer: 'other',
      product: 'dns_premium',
      action: 'CREATE',
      currency: 'USD',
      price: 350,
      fromDate: '2026-01-01T00:00:00Z',
    });
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
    try {
      const res = await post('/v2/dns/zones', { name: 'api-premium-none.nl', service: 'PREMIUM' }, {}, otherKey);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'ValidationError', violations: [{ field: 'service' }] });
      expect(res.body.message).toMatch(/no dns_premium price/);
    } finally {
      await db().send(new PutCommand({ TableName: tableName(), Item: item }));
    }
  });
});

describe("the replaced records' items", () => {
  it('are deleted after the commit while the request has time; what is left is listed on the header and swept by the next write', async () => {
    const { updateZone } = await import('../shared/dns/update-zone.ts');
    const { commitNothing } = await import('../shared/db/repositories/commit-with.ts');
    const { queryPartition } = await import('../shared/db/items.ts');
    const { keys } = await import('../shared/db/keys.ts');
    const name = 'api-sweep.nl';
    const created = await createZone(name);
    const id = created.body.id as number;
    const recordItems = async () => (await queryPartition(keys.domainCollection(name).pk)).filter((i) => i.entity === 'zoneRecord');
    const first = await getZoneHead(name, true);
    // No time left after the commit (a deadline in the past): the old generation stays, listed as retired.
    const who = { customer: 'demo', user: 'demo/alice' };
    await updateZone(who, { id }, { records: [{ ...a(name, '192.0.2.61'), type: 'A' as const }] }, undefined, commitNothing, false, 0);
    const second = await getZoneHead(name, true);
    expect(second?.retired).toEqual([{ generation: first?.generation, recordCount: 2 }]);
    expect(await recordItems()).toHaveLength(3);
    const read = await call('GET', `/v2/dns/zones/${id}`);
    expect(read.body.records).toEqual([a(name, '192.0.2.61')]);
    await expectOnDns(read.body);
    // A settings change keeps the records' generation and carries the list on, sweeping it.
    const settings = await post(`/v2/dns/zones/${id}/update`, { ttl: 7200 });
    expect(settings.status).toBe(200);
    const third = await getZoneHead(name, true);
    expect(third?.generation).toBe(second?.generation);
    expect(third?.retired).toBeUndefined();
    expect(await recordItems()).toHaveLength(1);
    await expectOnDns(settings.body);
  });
});

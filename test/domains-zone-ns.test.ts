import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { putTemplate } from '../shared/db/repositories/zone-writes.ts';
import { getZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { resolverOf } from './support/powerdns.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

/**
 * A name server change of a domain with a managed zone (docs/domains.md): the zone's NS records
 * follow the domain's name servers in the transaction of the update, and reach DNS through the
 * table's stream and zone-sync, asked of a real PowerDNS Authoritative on its DNS port.
 */

const soa = { hostMaster: 'hostmaster@demo-hosting.example', refresh: 10800, retry: 3600, expire: 604800, ttl: 3600 };

let pdns: LocalPowerDns;
let feeder: StreamFeeder;

beforeAll(async () => {
  pdns = await startPowerDns();
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
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

/** The NS records DNS answers for a name, sorted; [] while it answers none. */
async function servedNs(name: string): Promise<string[]> {
  return (
    await resolverOf(pdns)
      .resolveNs(name)
      .catch(() => [] as string[])
  ).sort();
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('name servers of a domain with a managed zone', () => {
  it("become the zone's NS records, in the update's transaction, and reach DNS", async () => {
    await feeder.drain(30_000);
    const before = (await getZoneHead('demo-shop.nl'))?.revision ?? 0;
    const ns = ['ns1.vanity-demo.example', 'ns2.vanity-demo.example'];
    const res = await call('POST', '/v2/domains/demo-shop.nl/update', { body: { ns } });
    expect(res.status, res.raw).toBe(200);
    const head = await getZoneHead('demo-shop.nl', true);
    expect(head?.zone.ns).toEqual(ns);
    expect(head?.revision).toBe(before + 1);
    expect((await call('GET', '/v2/domains/demo-shop.nl/zone')).body.ns).toEqual(ns);
    await feeder.drain(30_000);
    await eventually(async () => JSON.stringify(await servedNs('demo-shop.nl')) === JSON.stringify(ns));
  }, 60_000);

  it('leave a zone alone when nothing but other fields change, and another customer cannot touch it', async () => {
    const before = await getZoneHead('demo-shop.nl', true);
    expect((await call('POST', '/v2/domains/demo-shop.nl/update', { body: { autoRenew: false } })).status).toBe(200);
    expect((await getZoneHead('demo-shop.nl', true))?.revision).toBe(before?.revision);
    // other-site.com's zone is another customer's: the demo key's update is a 404 and changes nothing.
    const other = await getZoneHead('other-site.com', true);
    expect((await call('POST', '/v2/domains/other-site.com/update', { body: { ns: ['ns1.x.example', 'ns2.x.example'] } })).status).toBe(
      404,
    );
    expect((await getZoneHead('other-site.com', true))?.revision).toBe(other?.revision);
  });
});

/** A .com of the demo customer with no zone, written straight to the account. */
async function domainWithoutZone(domainName: string): Promise<void> {
  await putDomain({
    domainName,
    customer: 'demo',
    registry: 'verisign',
    registrant: 'demo-registrant',
    contacts: [],
    ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
    keyData: [],
    privacyProtect: false,
    autoRenew: true,
    status: ['OK'],
    createdDate: '2025-01-01T00:00:00Z',
    updatedDate: '2025-01-01T00:00:00Z',
    expiryDate: '2027-04-01T00:00:00Z',
  });
}

const updateZone = (domainName: string, zone: unknown, options: { key?: string; headers?: Record<string, string>; quote?: boolean } = {}) =>
  call('POST', `/v2/domains/${domainName}/update${options.quote ? '?quote=true' : ''}`, {
    body: { zone },
    ...(options.key ? { key: options.key } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });

/** The A records DNS answers for a name, sorted; [] while it answers none. */
async function servedA(name: string): Promise<string[]> {
  return (
    await resolverOf(pdns)
      .resolve4(name)
      .catch(() => [] as string[])
  ).sort();
}

describe("a domain update's zone: link, re-link and remove the managed zone", () => {
  const name = 'zone-link.com';

  beforeAll(async () => {
    await domainWithoutZone(name);
    const at = '2025-01-01T00:00:00Z';
    const record = (content: string) => ({ name: '##DOMAIN##', type: 'A' as const, content, ttl: 3600 });
    await putTemplate({ customer: 'demo', name: 'second-template', ...soa, records: [record('192.0.2.77')], createdDate: at });
    await putTemplate({ customer: 'other', name: 'their-template', ...soa, records: [record('192.0.2.99')], createdDate: at });
  });

  it('provisions a zone from a template for a domain without one, once per Idempotency-Key, served on DNS', async () => {
    // A quote checks it and writes nothing.
    expect((await updateZone(name, { service: 'BASIC', template: 'demo-template' }, { quote: true })).status).toBe(200);
    expect(await getZoneHead(name, true)).toBeUndefined();
    const headers = { 'Idempotency-Key': 'zone-link-once' };
    const res = await updateZone(name, { service: 'BASIC', template: 'demo-template', link: true }, { headers });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.zone).toMatchObject({ service: 'BASIC', template: 'demo-template', dnssec: false });
    const again = await updateZone(name, { service: 'BASIC', template: 'demo-template', link: true }, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(res.body);
    const head = await getZoneHead(name, true);
    expect(head?.zone).toMatchObject({ id: res.body.zone.id, customer: 'demo', managed: true, template: 'demo-template', link: true });
    expect((await call('GET', `/v2/domains/${name}`)).body.zone).toEqual(res.body.zone);
    const zone = (await call('GET', `/v2/domains/${name}/zone`)).body;
    expect(zone.records).toContainEqual({ name, type: 'A', content: '192.0.2.10', ttl: 3600 });
    await feeder.drain(30_000);
    await eventually(async () => JSON.stringify(await servedA(name)) === '["192.0.2.10"]');
  }, 60_000);

  it("takes the zone as read back, refuses what an update does not change and another customer's template", async () => {
    const before = await getZoneHead(name, true);
    const shown = (await call('GET', `/v2/domains/${name}`)).body.zone;
    expect((await updateZone(name, shown)).status).toBe(200);
    expect((await getZoneHead(name, true))?.revision).toBe(before?.revision);
    const premium = await updateZone(name, { ...shown, service: 'PREMIUM' });
    expect(premium.status).toBe(400);
    expect(premium.body.violations.map((v: { field: string }) => v.field)).toEqual(['zone.service']);
    const theirs = await updateZone(name, { template: 'their-template' });
    expect(theirs.status).toBe(400);
    expect(theirs.body).toMatchObject({ type: 'ObjectDoesNotExist' });
    const missing = await updateZone(name, { template: 'no-such-template' });
    expect({ ...theirs.body, message: undefined, requestId: undefined, identifier: undefined }).toEqual({
      ...missing.body,
      message: undefined,
      requestId: undefined,
      identifier: undefined,
    });
    expect((await getZoneHead(name, true))?.revision).toBe(before?.revision);
  });

  it('re-links the zone to another template: its records replace the old link, the change reaches DNS', async () => {
    const before = await getZoneHead(name, true);
    const res = await updateZone(name, { template: 'second-template' });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.zone).toMatchObject({ id: before?.zone.id, template: 'second-template' });
    const zone = (await call('GET', `/v2/domains/${name}/zone`)).body;
    expect(zone).toMatchObject({ template: 'second-template', link: true });
    expect(zone.records.filter((r: { type: string }) => r.type === 'A')).toEqual([{ name, type: 'A', content: '192.0.2.77', ttl: 3600 }]);
    expect(zone.records.some((r: { type: string }) => r.type === 'MX')).toBe(false);
    await feeder.drain(30_000);
    await eventually(async () => JSON.stringify(await servedA(name)) === '["192.0.2.77"]');
    // Breaking the link keeps the records, now the zone's own.
    const unlinked = await updateZone(name, { link: false });
    expect(unlinked.status).toBe(200);
    const own = (await call('GET', `/v2/domains/${name}/zone`)).body;
    expect(own).toMatchObject({ template: 'second-template', link: false });
    expect(own.records).toEqual(zone.records);
  }, 60_000);

  it('removes the managed zone with zone: {} (the table, then DNS), and nothing the second time', async () => {
    const head = await getZoneHead(name, true);
    const res = await updateZone(name, {});
    expect(res.status, res.raw).toBe(200);
    expect(res.body.zone).toBeUndefined();
    expect(await getZoneHead(name, true)).toBeUndefined();
    expect((await call('GET', `/v2/domains/${name}/zone`)).status).toBe(404);
    expect((await call('GET', `/v2/dns/zones/${head?.zone.id}`)).status).toBe(404);
    const notes = await call('GET', '/v2/customers/demo/notifications?eventType=UpdateDomainEvent&limit=100');
    const mine = notes.body.entities.find((n: { process?: number }) => String(n.process) === res.headers['x-process-id']);
    expect(mine.payload).toEqual({ fields: ['zone'] });
    expect((await call('GET', `/v2/processes/${res.headers['x-process-id']}`)).body.command).toEqual({ domainName: name, zone: {} });
    await feeder.drain(30_000);
    await eventually(async () => (await servedA(name)).length === 0);
    expect((await updateZone(name, {})).status).toBe(200);
  }, 60_000);

  it("makes the caller's plain zone of the name managed (the WHMCS module's DNS flow), and never another customer's", async () => {
    const created = await call('POST', '/v2/dns/zones', {
      body: { name, service: 'BASIC', records: [{ name, type: 'A', content: '192.0.2.55', ttl: 3600 }] },
    });
    expect(created.status, created.raw).toBe(201);
    // domains->update(zone: Zone::fromArray(['service' => 'BASIC'])), as the module sends it.
    const res = await updateZone(name, { service: 'BASIC', dnssec: false });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.zone).toEqual({ id: created.body.id, service: 'BASIC', dnssec: false });
    expect((await getZoneHead(name, true))?.zone.managed).toBe(true);
    // other-site.com's zone is another customer's: a zone.id naming it is no zone of the caller's.
    const theirs = (await getZoneHead('other-site.com', true))?.zone.id;
    const refused = await updateZone(name, { id: theirs });
    expect(refused.status).toBe(400);
    expect(refused.body.violations.map((v: { field: string }) => v.field)).toEqual(['zone.id']);
    expect((await updateZone('other-site.com', {}, {})).status).toBe(404);
    expect((await getZoneHead('other-site.com', true))?.zone.managed).toBe(true);
  });
});

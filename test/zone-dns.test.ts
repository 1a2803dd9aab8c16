import type { Context, DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { getZoneDnsState, recordZoneServed } from '../shared/db/repositories/zone-dns.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { PowerDnsProvider } from '../shared/dns/powerdns.ts';
import type { ReconcileSummary } from '../shared/dns/reconcile.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { coveredType, dsOf, queryWire, rrTypes } from './support/dns-wire.ts';
import { compareWithDns, resolverOf, type Switch, switchablePath } from './support/powerdns.ts';
import { withTableStream } from './support/table-stream.ts';
import { demoBody, transfer } from './support/transfer.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// The DNS integration against a real PowerDNS Authoritative (Debian's pdns-server, started here on
// free ports; never mocked): zones written to the table reach it through the table's stream and
// the zone-sync consumer, fed as Lambda feeds it (infra/local/streams.ts), and what it answers on
// DNS is what GET .../zone shows. The service reaches PowerDNS's API through a TCP path the tests
// can cut, to see an outage as the service sees one.

let pdns: LocalPowerDns;
let path: Switch;
let feeder: StreamFeeder;
let resolver: ReturnType<typeof resolverOf>;
let direct: PowerDnsProvider;

beforeAll(async () => {
  pdns = await startPowerDns();
  path = await switchablePath({ host: '127.0.0.1', port: Number(new URL(pdns.apiUrl).port) });
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: path.url, POWERDNS_API_KEY: pdns.apiKey });
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
  await path?.close();
  await pdns?.stop();
  for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[name];
});

async function zoneView(domainName: string, key?: string) {
  const res = await call('GET', `/v2/domains/${domainName}/zone`, key ? { key } : {});
  expect(res.status).toBe(200);
  return res.body;
}

/** Every record set of the view equals what DNS answers for it. */
async function expectServedAsShown(domainName: string, key?: string): Promise<void> {
  const view = await zoneView(domainName, key);
  const compared = await compareWithDns(resolver, view);
  expect(compared.length).toBeGreaterThan(2);
  for (const set of compared) expect(set.dns, set.key).toEqual(set.view);
}

/** Waits until `check` holds (the stream delivers within a second or two), polling every 50 ms. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<{ value: T }> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return { value };
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function zoneOf(domainName: string, records: ZoneRecord['records'], overrides: Partial<ZoneRecord> = {}): ZoneRecord {
  return {
    id: 9000 + Math.floor(Math.random() * 1000),
    domainName,
    customer: 'demo',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'hostmaster@demo-hosting.example',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 300,
    records,
    createdDate: '2026-01-01T00:00:00Z',
    updatedDate: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...overrides,
  };
}

function streamEvent(domainName: string, sequenceNumber: string): DynamoDBStreamEvent {
  return {
    Records: [
      {
        eventName: 'MODIFY',
        eventSource: 'aws:dynamodb',
        dynamodb: { Keys: { pk: { S: `DOMAIN#${domainName}` }, sk: { S: 'ZONE' } }, SequenceNumber: sequenceNumber },
      },
    ],
  };
}

async function soaSerial(domainName: string): Promise<number> {
  return (await resolver.resolveSoa(domainName)).serial;
}

describe('the demo zones on DNS', () => {
  it('answers every record set of each managed zone as GET .../zone shows it, and says it is served', async () => {
    await expectServedAsShown('demo-shop.nl');
    await expectServedAsShown('demo-secure.com');
    await expectServedAsShown('other-site.com', otherKey);
    const view = await zoneView('demo-shop.nl');
    expect(view.dns).toMatchObject({ provider: 'powerdns', status: 'served', servedSince: expect.any(String) });
    // A zone that is not a domain's managed zone (here one waiting for its domain's transfer) is served too.
    expect((await resolver.resolveSoa('transfer-wait.com')).nsname).toBe('ns1.registrar-sandbox.example');
  });
});

describe('writes reach DNS through the stream', () => {
  it('serves the zone a transfer provisions within seconds of its 200', async () => {
    const res = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026', zone: { template: 'demo-template' } });
    expect(res.status).toBe(200);
    // Served within seconds: `eventually` gives up after 15 s (the bench measures the time itself).
    await eventually(async () => ((await resolver.resolveMx('transfer-now.nl').catch(() => [])).length > 0 ? true : undefined));
    await expectServedAsShown('transfer-now.nl');
    await feeder.drain();
    expect((await zoneView('transfer-now.nl')).dns.status).toBe('served');
  });

  it("serves a renewal's DNS DCV records, and removes them when the renewal is cancelled", async () => {
    const cert = await testCertificate();
    const csr = makeCsr({ subject: 'CN=www.demo-shop.nl, O=Demo Hosting B.V., C=NL', san: ['www.demo-shop.nl', 'demo-shop.nl'] });
    const res = await renew(cert.id, { period: 12, csr });
    expect(res.status).toBe(202);
    const [dcv] = res.body.validations.dcv as { dnsRecord: string; dnsContents: string }[];
    const name = (dcv as { dnsRecord: string }).dnsRecord.replace(/\.$/, '');
    const { value } = await eventually(async () => {
      const answer = await resolver.resolveCname(name).catch(() => []);
      return answer.length > 0 ? answer : undefined;
    });
    expect(value).toEqual([(dcv as { dnsContents: string }).dnsContents.replace(/\.$/, '').toLowerCase()]);
    await expectServedAsShown('demo-shop.nl');

    const cancelled = await call('DELETE', `/v2/processes/${res.headers['x-process-id']}`);
    expect(cancelled.status).toBeLessThan(300);
    await eventually(async () => ((await resolver.resolveCname(name).catch(() => [])).length === 0 ? true : undefined));
    await expectServedAsShown('demo-shop.nl');
  });
});

describe('failures', () => {
  it('records a zone the provider refuses, with its reason, in GET .../zone; serves it once it is fixed', async () => {
    const clash = [
      { name: 'www.refused-zone.nl', type: 'A' as const, content: '192.0.2.1', ttl: 300 },
      { name: 'www.refused-zone.nl', type: 'CNAME' as const, content: 'refused-zone.nl', ttl: 300 },
    ];
    await putZone(zoneOf('refused-zone.nl', clash));
    await feeder.drain();
    const state = await getZoneDnsState('refused-zone.nl');
    expect(state).toMatchObject({ status: 'refused', failedRevision: expect.any(Number) });
    expect(state?.reason).toMatch(/CNAME/i);
    expect(feeder.failures).toEqual([]);
    // The customer is told, in the same write: a notification that reads by its id like any other.
    const told = await call('GET', '/v2/customers/demo/notifications?eventType=DnsZoneRefusedEvent&processIdentifier:null=');
    expect(told.status).toBe(200);
    expect(told.body.entities).toHaveLength(1);
    const [refusal] = told.body.entities;
    expect(refusal).toMatchObject({
      customer: 'demo',
      notificationType: 'DomainZoneNotification',
      subjectStatus: 'FAILED',
      statusDetail: 'refused',
      domainName: 'refused-zone.nl',
      reason: state?.reason,
    });
    expect((await call('GET', `/v2/customers/demo/notifications/${refusal.id}`)).body.id).toBe(refusal.id);

    await putZone(zoneOf('refused-zone.nl', [clash[0] as ZoneRecord['records'][number]]));
    await feeder.drain();
    expect((await getZoneDnsState('refused-zone.nl'))?.status).toBe('served');
    expect(await resolver.resolve4('www.refused-zone.nl')).toEqual(['192.0.2.1']);
  });

  it('keeps a push made while the provider is down, and serves it once the provider is back', async () => {
    await path.down();
    try {
      const zone = (await getZone('demo-shop.nl')) as ZoneRecord;
      const records = [...zone.records, { name: 'outage.##DOMAIN##', type: 'A' as const, content: '192.0.2.77', ttl: 300 }];
      await putZone({ ...zone, records, updatedDate: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
      const { value } = await eventually(async () => {
        const view = await zoneView('demo-shop.nl');
        return view.dns.reason ? view.dns : undefined;
      });
      expect(value).toMatchObject({ status: 'pending', reason: expect.stringContaining('PowerDNS did not answer') });
      await expect(resolver.resolve4('outage.demo-shop.nl')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    } finally {
      await path.up();
    }
    await feeder.drain(60_000);
    expect(await resolver.resolve4('outage.demo-shop.nl')).toEqual(['192.0.2.77']);
    expect((await zoneView('demo-shop.nl')).dns).toMatchObject({ status: 'served' });
    expect((await zoneView('demo-shop.nl')).dns.reason).toBeUndefined();
    expect(feeder.failures).toEqual([]);
    await expectServedAsShown('demo-shop.nl');
  }, 90_000);

  it('changes nothing for a replayed push or one that arrives after a newer one', async () => {
    const { handler } = await import('../functions/zone-sync/handler.ts');
    const zone = (await getZone('demo-secure.com')) as ZoneRecord;
    await putZone({ ...zone, records: [...zone.records, { name: 'v1.demo-secure.com', type: 'A', content: '192.0.2.1', ttl: 300 }] });
    await putZone({ ...zone, records: [...zone.records, { name: 'v2.demo-secure.com', type: 'A', content: '192.0.2.2', ttl: 300 }] });
    await feeder.drain();
    const serial = await soaSerial('demo-secure.com');
    const state = await getZoneDnsState('demo-secure.com');

    // The older write's record again, then the newest again: nothing is sent to the provider.
    expect(await handler(streamEvent('demo-secure.com', '1'))).toEqual({ batchItemFailures: [] });
    expect(await handler(streamEvent('demo-secure.com', '2'))).toEqual({ batchItemFailures: [] });
    expect(await soaSerial('demo-secure.com')).toBe(serial);
    expect(await getZoneDnsState('demo-secure.com')).toEqual(state);
    await expect(resolver.resolve4('v1.demo-secure.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(await resolver.resolve4('v2.demo-secure.com')).toEqual(['192.0.2.2']);

    // A late recording of an older revision never replaces the newer one.
    const older = {
      domainName: 'demo-secure.com',
      customer: 'demo',
      zoneId: zone.id,
      provider: 'powerdns',
      ds: [],
      now: '2026-01-01T00:00:00Z',
    };
    expect(await recordZoneServed({ ...older, revision: (state?.servedRevision as number) - 1 })).toBe(false);
    expect(await recordZoneServed({ ...older, revision: state?.servedRevision as number })).toBe(false);
    expect(await getZoneDnsState('demo-secure.com')).toEqual(state);
  });
});

describe('the reconcile job', () => {
  it('repairs what was changed at the provider behind the service, and counts it', async () => {
    await feeder.drain();
    await direct.applyChanges('demo-shop.nl', [
      { action: 'upsert', recordSet: { name: 'demo-shop.nl.', type: 'A', ttl: 60, values: ['203.0.113.66'] } },
      { action: 'delete', recordSet: { name: '_dmarc.demo-shop.nl.', type: 'TXT', ttl: 3600, values: [] } },
      { action: 'upsert', recordSet: { name: 'stray.demo-shop.nl.', type: 'A', ttl: 60, values: ['203.0.113.67'] } },
    ]);
    expect(await resolver.resolve4('demo-shop.nl')).toEqual(['203.0.113.66']);

    const { handler } = await import('../functions/zone-reconcile/handler.ts');
    const summary = (await handler({} as ScheduledEvent, { awsRequestId: 'reconcile' } as Context)) as ReconcileSummary;
    expect(summary).toMatchObject({ repaired: 1, failed: 0 });
    expect(summary.recordSetsChanged).toBeGreaterThanOrEqual(3);
    expect(summary.zones).toBeGreaterThanOrEqual(4);
    await expectServedAsShown('demo-shop.nl');
    await expect(resolver.resolve4('stray.demo-shop.nl')).rejects.toMatchObject({ code: 'ENOTFOUND' });

    const again = (await handler({} as ScheduledEvent, { awsRequestId: 'reconcile-2' } as Context)) as ReconcileSummary;
    expect(again).toMatchObject({ repaired: 0, recordSetsChanged: 0, failed: 0 });
  });
});

describe('DNSSEC', () => {
  it('signs a zone with dnssec: true, and its DS in GET .../zone is the one of the key DNS serves', async () => {
    const server = { address: pdns.dnsAddress, port: pdns.dnsPort };
    const answer = await queryWire(server, 'demo-secure.com', rrTypes.A);
    expect(answer.answers.filter((a) => a.type === rrTypes.RRSIG).map(coveredType)).toEqual([rrTypes.A]);

    const keys = (await queryWire(server, 'demo-secure.com', rrTypes.DNSKEY)).answers.filter((a) => a.type === rrTypes.DNSKEY);
    const own = keys.filter((k) => k.rdata.readUInt16BE(0) === 257 && !k.rdata.equals(Buffer.from('')));
    const view = await zoneView('demo-secure.com');
    const ds = view.dns.ds as string[];
    const sha256 = ds.filter((d) => d.split(' ')[2] === '2');
    expect(sha256).toHaveLength(1);
    expect(own.map((k) => dsOf('demo-secure.com', k.rdata))).toContain(sha256[0]);

    // An unsigned zone answers no signatures and shows no DS.
    const plain = await queryWire(server, 'demo-shop.nl', rrTypes.A);
    expect(plain.answers.some((a) => a.type === rrTypes.RRSIG)).toBe(false);
    expect((await zoneView('demo-shop.nl')).dns.ds).toBeUndefined();
  });
});

// Last in the file: writing 10,000 records is the slowest write of the suite.
describe('a big zone', () => {
  it('serves a 10,000-record zone whole', async () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({
      name: `host${i}.big-zone.nl`,
      type: 'A' as const,
      content: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      ttl: 300,
    }));
    await putZone(zoneOf('big-zone.nl', records));
    // 10,000 records take seconds on an idle DynamoDB Local and minutes late in a full run, when
    // it has slowed down (docs/performance.md); the figure that matters is the bench's.
    await feeder.drain(540_000);
    const served = await direct.zone('big-zone.nl');
    expect(served?.recordSets.filter((s) => s.type === 'A')).toHaveLength(10_000);
    for (const i of [0, 1, 4999, 9998, 9999])
      expect(await resolver.resolve4(`host${i}.big-zone.nl`)).toEqual([(records[i] as { content: string }).content]);
    expect((await getZoneDnsState('big-zone.nl'))?.status).toBe('served');
  }, 600_000);
});

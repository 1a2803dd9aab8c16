import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { getZoneDnsState } from '../shared/db/repositories/zone-dns.ts';
import { deleteZoneRecord, putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone, getZoneHead } from '../shared/db/repositories/zones.ts';
import { plan } from '../shared/dns/plan.ts';
import { PowerDnsProvider } from '../shared/dns/powerdns.ts';
import { type ChangeHandle, DnsChangeRefused, type DnsProvider, type RecordSet } from '../shared/dns/provider.ts';
import { desiredRecordSets } from '../shared/dns/record-sets.ts';
import { Route53Provider } from '../shared/dns/route53.ts';
import { SandboxDnsProvider } from '../shared/dns/sandbox.ts';
import { syncZone } from '../shared/dns/sync.ts';
import { dnsImplementations } from '../shared/integrations.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { fakeRoute53 } from './support/route53.ts';

// The contract of the DNS port (shared/dns/provider.ts): the same cases over every adapter of it.
// PowerDNS is the real server (Debian's pdns-server, started here); Route 53 is the real adapter on
// a real Route53Client whose answers come from test/support/route53.ts at the SDK boundary; the
// sandbox is the in-memory provider that DNS_PROVIDER=sandbox runs.

let pdns: LocalPowerDns;

beforeAll(async () => {
  pdns = await startPowerDns();
}, 120_000);

afterAll(async () => {
  await pdns?.stop();
});

/** Every adapter, by the name `DNS_PROVIDER` gives it: a new one fails the first case until it is here. */
const adapters: Record<string, () => DnsProvider> = {
  sandbox: () => new SandboxDnsProvider(),
  powerdns: () => new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey }),
  route53: () =>
    new Route53Provider({ client: fakeRoute53().client, retryBaseMs: 1, kskKmsKeyArn: 'arn:aws:kms:us-east-1:111111111111:key/contract' }),
};

it('covers every adapter the selector knows', () => {
  expect(Object.keys(adapters).sort()).toEqual([...dnsImplementations].sort());
});

/** A record set as comparable text: name, type, TTL and the values in order. */
const text = (set: RecordSet) => `${set.name} ${set.type} ${set.ttl} ${[...set.values].sort().join(' | ')}`;
const setsAt = (sets: readonly RecordSet[], name: string) => sets.filter((s) => s.name === name).map(text);

/** Until the change answers on the provider's name servers (Route 53: INSYNC), a few polls at most. */
async function served(provider: DnsProvider, handle: ChangeHandle): Promise<void> {
  for (let poll = 0; poll < 10; poll++) if (await provider.isServed(handle)) return;
  throw new Error(`${provider.name}: the change ${handle.id} is not served after 10 polls`);
}

function zoneOf(domainName: string, records: ZoneRecord['records'], overrides: Partial<ZoneRecord> = {}): ZoneRecord {
  return {
    id: 9500 + Math.floor(Math.random() * 400),
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

describe.each(Object.keys(adapters))('the DNS port over %s', (name) => {
  let provider: DnsProvider;
  beforeAll(() => {
    provider = (adapters[name] as () => DnsProvider)();
  });
  const zone = (label: string) => `${label}-${name}.nl`;

  it('names itself as DNS_PROVIDER spells it', () => {
    expect(provider.name).toBe(name);
  });

  it('hosts no zone it was not given, and removing one it does not host is no error', async () => {
    expect(await provider.zone(zone('contract-none'))).toBeUndefined();
    await expect(provider.deleteZone(zone('contract-none'))).resolves.toBeUndefined();
  });

  it('creates a zone with its SOA and NS at the apex, unsigned, and removes it', async () => {
    const apex = `${zone('contract-new')}.`;
    await provider.createZone(zone('contract-new'), { nameServers: ['ns1.contract.example.', 'ns2.contract.example.'], dnssec: false });
    const created = await provider.zone(zone('contract-new'));
    expect(created).toMatchObject({ name: apex, dnssec: false, ds: [] });
    expect(
      created?.recordSets
        .filter((s) => s.name === apex)
        .map((s) => s.type)
        .sort(),
    ).toEqual(['NS', 'SOA']);
    await provider.deleteZone(zone('contract-new'));
    expect(await provider.zone(zone('contract-new'))).toBeUndefined();
  });

  it('puts, replaces and deletes whole record sets, and serves each change', async () => {
    const z = zone('contract-sets');
    const www = `www.${z}.`;
    const txt = `_info.${z}.`;
    await provider.createZone(z, { nameServers: ['ns1.contract.example.'], dnssec: false });
    await served(
      provider,
      await provider.applyChanges(z, [
        { action: 'upsert', recordSet: { name: www, type: 'A', ttl: 300, values: ['192.0.2.1', '192.0.2.2'] } },
        { action: 'upsert', recordSet: { name: txt, type: 'TXT', ttl: 60, values: ['"contract"'] } },
        { action: 'upsert', recordSet: { name: `${z}.`, type: 'MX', ttl: 300, values: [`10 mail.${z}.`] } },
      ]),
    );
    let now = (await provider.zone(z))?.recordSets ?? [];
    expect(setsAt(now, www)).toEqual([`${www} A 300 192.0.2.1 | 192.0.2.2`]);
    expect(setsAt(now, txt)).toEqual([`${txt} TXT 60 "contract"`]);
    expect(now.filter((s) => s.type === 'MX').map(text)).toEqual([`${z}. MX 300 10 mail.${z}.`]);

    // A set is replaced whole: the value left out is gone, the TTL is the new one.
    const txtSet = now.find((s) => s.name === txt) as RecordSet;
    await served(
      provider,
      await provider.applyChanges(z, [
        { action: 'upsert', recordSet: { name: www, type: 'A', ttl: 120, values: ['192.0.2.3'] } },
        { action: 'delete', recordSet: txtSet },
      ]),
    );
    now = (await provider.zone(z))?.recordSets ?? [];
    expect(setsAt(now, www)).toEqual([`${www} A 120 192.0.2.3`]);
    expect(setsAt(now, txt)).toEqual([]);
    await provider.deleteZone(z);
  });

  it('refuses a CNAME beside other data, and keeps serving the zone as it was', async () => {
    const z = zone('contract-cname');
    const www = `www.${z}.`;
    await provider.createZone(z, { nameServers: ['ns1.contract.example.'], dnssec: false });
    await served(
      provider,
      await provider.applyChanges(z, [{ action: 'upsert', recordSet: { name: www, type: 'A', ttl: 300, values: ['192.0.2.9'] } }]),
    );
    await expect(
      provider.applyChanges(z, [{ action: 'upsert', recordSet: { name: www, type: 'CNAME', ttl: 300, values: [`${z}.`] } }]),
    ).rejects.toBeInstanceOf(DnsChangeRefused);
    expect(setsAt((await provider.zone(z))?.recordSets ?? [], www)).toEqual([`${www} A 300 192.0.2.9`]);
    await provider.deleteZone(z);
  });

  it('signs a zone, tells its SHA-256 DS (algorithm 13), and stops signing it', async () => {
    const z = zone('contract-signed');
    await provider.createZone(z, { nameServers: ['ns1.contract.example.'], dnssec: true });
    const signed = await provider.zone(z);
    expect(signed?.dnssec).toBe(true);
    expect(signed?.ds.some((ds) => /^\d{1,5} 13 2 [0-9a-f]{64}$/i.test(ds))).toBe(true);
    expect(await provider.setDnssec(z, false)).toEqual([]);
    expect(await provider.zone(z)).toMatchObject({ dnssec: false, ds: [] });
    const again = await provider.setDnssec(z, true);
    expect(again.some((ds) => /^\d{1,5} 13 2 [0-9a-f]{64}$/i.test(ds))).toBe(true);
    await provider.deleteZone(z);
  });

  it('is made by the zone sync to serve a table zone as GET .../zone shows it, follows its changes, and lets it go', async () => {
    const z = zone('contract-sync');
    await putZone(
      zoneOf(z, [
        { name: `##DOMAIN##`, type: 'A', content: '192.0.2.10', ttl: 300 },
        { name: `www.##DOMAIN##`, type: 'CNAME', content: '##DOMAIN##', ttl: 300 },
        { name: `##DOMAIN##`, type: 'MX', content: 'mail.##DOMAIN##', ttl: 300, prio: 10 },
        { name: `##DOMAIN##`, type: 'TXT', content: 'v=spf1 -all', ttl: 300 },
      ]),
    );
    expect(await syncZone(provider, z)).toMatchObject({ kind: 'served', created: true });
    const desired = () => getZone(z).then((record) => desiredRecordSets(record as ZoneRecord));
    expect(plan(await desired(), (await provider.zone(z))?.recordSets ?? [])).toEqual([]);
    expect(await getZoneDnsState(z)).toMatchObject({ provider: name, status: 'served' });

    // One record changed: the push changes its set (and the SOA, whose serial moves), no more.
    const before = (await getZone(z)) as ZoneRecord;
    await putZone({
      ...before,
      records: before.records.map((r) => (r.type === 'A' ? { ...r, content: '192.0.2.11' } : r)),
      updatedDate: '2026-06-01T00:00:00Z',
    });
    const changed = await syncZone(provider, z);
    expect(changed).toMatchObject({ kind: 'served', created: false });
    expect(changed.kind === 'served' && changed.changes).toBeLessThanOrEqual(2);
    expect(plan(await desired(), (await provider.zone(z))?.recordSets ?? [])).toEqual([]);

    // Deleted from the table: no longer served.
    const head = await getZoneHead(z, true);
    expect(head && (await deleteZoneRecord(head, []))).toBeUndefined();
    expect(await syncZone(provider, z)).toEqual({ kind: 'removed' });
    expect(await provider.zone(z)).toBeUndefined();
  });
});

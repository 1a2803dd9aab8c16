import { describe, expect, it } from 'vitest';
import { getZoneDnsState } from '../shared/db/repositories/zone-dns.ts';
import { deleteZoneRecord, putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZoneHead, type ZoneHead } from '../shared/db/repositories/zones.ts';
import { DnsProviderUnavailable } from '../shared/dns/provider.ts';
import { batches, Route53Provider } from '../shared/dns/route53.ts';
import { syncZone } from '../shared/dns/sync.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { fakeRoute53 } from './support/route53.ts';

// The Route 53 adapter at the AWS SDK client boundary: a middleware on a real Route53Client answers
// each command as Route 53 documents it (test/support/route53.ts: its limits per
// ChangeResourceRecordSets enforced, changes PENDING until GetChange says INSYNC, throttling
// injected), the way DynamoDB faults are injected elsewhere. The adapter has not run against AWS
// itself (docs/dns.md).

function zoneOf(domainName: string, records: ZoneRecord['records'], overrides: Partial<ZoneRecord> = {}): ZoneRecord {
  return {
    id: 7000 + Math.floor(Math.random() * 1000),
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
    ...overrides,
  };
}

const changeCalls = (calls: { command: string; input: Record<string, unknown> }[]) =>
  calls.filter((c) => c.command === 'ChangeResourceRecordSetsCommand').map((c) => (c.input.ChangeBatch as { Changes: unknown[] }).Changes);

describe('the Route 53 adapter', () => {
  it('cuts changes into requests within 1,000 records and 32,000 characters, an UPSERT counting twice', () => {
    const upserts = Array.from({ length: 1200 }, (_, i) => ({
      action: 'upsert' as const,
      recordSet: { name: `h${i}.example.com.`, type: 'A', ttl: 60, values: ['192.0.2.1'] },
    }));
    expect(batches(upserts).map((b) => b.length)).toEqual([500, 500, 200]);
    const long = Array.from({ length: 10 }, (_, i) => ({
      action: 'upsert' as const,
      recordSet: { name: `t${i}.example.com.`, type: 'TXT', ttl: 60, values: [`"${'x'.repeat(3998)}"`] },
    }));
    expect(batches(long).map((b) => b.length)).toEqual([4, 4, 2]);
  });

  it('sends a 3,000-record change in batches within the limits, and says it is served only once GetChange is INSYNC', async () => {
    const fake = fakeRoute53({ insyncAfter: 2 });
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1 });
    await provider.createZone('r53-big.nl', { nameServers: ['ns1.example.net.'], dnssec: false });
    const changes = Array.from({ length: 3000 }, (_, i) => ({
      action: 'upsert' as const,
      recordSet: { name: `h${i}.r53-big.nl.`, type: 'A', ttl: 60, values: ['192.0.2.7'] },
    }));
    const handle = await provider.applyChanges('r53-big.nl', changes);
    // The fake refuses any request over Route 53's limits: 3,000 UPSERTs go as 6 of 500.
    expect(changeCalls(fake.calls).map((b) => b.length)).toEqual([500, 500, 500, 500, 500, 500]);
    expect(handle.id?.split(' ')).toHaveLength(6);
    expect(await provider.isServed(handle)).toBe(false);
    let polls = 1;
    while (!(await provider.isServed(handle)) && polls < 50) polls++;
    expect(polls).toBeLessThan(50);
    // Served only once every one of its changes is INSYNC.
    const asked = new Set(fake.calls.filter((c) => c.command === 'GetChangeCommand').map((c) => c.input.Id));
    expect([...asked].sort()).toEqual((handle.id as string).split(' ').sort());
    const served = await provider.zone('r53-big.nl');
    expect(served?.recordSets.filter((s) => s.type === 'A')).toHaveLength(3000);
  });

  it('retries Throttling and PriorRequestNotComplete with backoff', async () => {
    const fake = fakeRoute53({ faults: { ChangeResourceRecordSetsCommand: ['Throttling', 'PriorRequestNotComplete', 'Throttling'] } });
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1 });
    await putZone(zoneOf('r53-throttled.nl', [{ name: 'www.r53-throttled.nl', type: 'A', content: '192.0.2.8', ttl: 60 }]));
    expect(await syncZone(provider, 'r53-throttled.nl')).toMatchObject({ kind: 'served' });
    expect(fake.calls.filter((c) => c.command === 'ChangeResourceRecordSetsCommand')).toHaveLength(4);
  });

  it('keeps a change that is not INSYNC yet pending, and records the zone served once it is, without sending it again', async () => {
    const fake = fakeRoute53({ insyncAfter: 1000 });
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1 });
    await putZone(zoneOf('r53-slow.nl', [{ name: 'www.r53-slow.nl', type: 'A', content: '192.0.2.9', ttl: 60 }]));
    await expect(syncZone(provider, 'r53-slow.nl', { waitMs: 300 })).rejects.toBeInstanceOf(DnsProviderUnavailable);
    const state = await getZoneDnsState('r53-slow.nl');
    expect(state).toMatchObject({ status: 'pending', pendingChange: expect.stringMatching(/^\/change\//) });
    const sentBefore = changeCalls(fake.calls).length;
    await expect(syncZone(provider, 'r53-slow.nl', { waitMs: 300 })).rejects.toThrow(/not served change/);

    const done = fakeRoute53({ insyncAfter: 0 });
    for (const [id, zone] of fake.zones) done.zones.set(id, zone);
    const insync = new Route53Provider({ client: done.client, retryBaseMs: 1 });
    expect(await syncZone(insync, 'r53-slow.nl')).toMatchObject({ kind: 'served', changes: 0 });
    expect(changeCalls(fake.calls)).toHaveLength(sentBefore);
    expect(changeCalls(done.calls)).toHaveLength(0);
    expect(await getZoneDnsState('r53-slow.nl')).toMatchObject({ status: 'served' });
    expect((await getZoneDnsState('r53-slow.nl'))?.pendingChange).toBeUndefined();
  });

  it('records a change Route 53 refuses as refused, with its reason', async () => {
    const fake = fakeRoute53();
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1 });
    await putZone(
      zoneOf('r53-refused.nl', [
        { name: 'www.r53-refused.nl', type: 'A', content: '192.0.2.1', ttl: 60 },
        { name: 'www.r53-refused.nl', type: 'CNAME', content: 'r53-refused.nl', ttl: 60 },
      ]),
    );
    expect(await syncZone(provider, 'r53-refused.nl')).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('InvalidChangeBatch'),
    });
    expect(await getZoneDnsState('r53-refused.nl')).toMatchObject({ status: 'refused' });
  });

  it('signs a zone with dnssec: true with a key-signing key on the KMS key, and keeps its DS', async () => {
    const fake = fakeRoute53();
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1, kskKmsKeyArn: 'arn:aws:kms:us-east-1:1:key/k' });
    await putZone(zoneOf('r53-signed.nl', [{ name: 'r53-signed.nl', type: 'A', content: '192.0.2.1', ttl: 60 }], { dnssec: true }));
    expect(await syncZone(provider, 'r53-signed.nl')).toMatchObject({ kind: 'served' });
    const ksk = fake.calls.find((c) => c.command === 'CreateKeySigningKeyCommand');
    expect(ksk?.input).toMatchObject({ KeyManagementServiceArn: 'arn:aws:kms:us-east-1:1:key/k', Status: 'ACTIVE' });
    expect(fake.calls.some((c) => c.command === 'EnableHostedZoneDNSSECCommand')).toBe(true);
    expect((await getZoneDnsState('r53-signed.nl'))?.ds).toEqual([`4242 13 2 ${'ab'.repeat(32)}`]);
  });

  it('removes a zone that is deleted: its record sets, then the hosted zone', async () => {
    const fake = fakeRoute53();
    const provider = new Route53Provider({ client: fake.client, retryBaseMs: 1 });
    await putZone(zoneOf('r53-gone.nl', [{ name: 'www.r53-gone.nl', type: 'A', content: '192.0.2.1', ttl: 60 }]));
    await syncZone(provider, 'r53-gone.nl');
    expect(await deleteZoneRecord((await getZoneHead('r53-gone.nl', true)) as ZoneHead, [])).toBeUndefined();
    expect(await syncZone(provider, 'r53-gone.nl')).toEqual({ kind: 'removed' });
    expect(fake.zones.size).toBe(0);
    expect(await getZoneDnsState('r53-gone.nl')).toBeUndefined();
  });
});

import { type ResourceRecordSet, Route53Client } from '@aws-sdk/client-route-53';
import { describe, expect, it } from 'vitest';
import { getZoneDnsState } from '../shared/db/repositories/zone-dns.ts';
import { deleteZoneRecord, putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZoneHead, type ZoneHead } from '../shared/db/repositories/zones.ts';
import { DnsProviderUnavailable } from '../shared/dns/provider.ts';
import { batches, Route53Provider, route53Limits } from '../shared/dns/route53.ts';
import { syncZone } from '../shared/dns/sync.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';

// The Route 53 adapter at the AWS SDK client boundary: a middleware on a real Route53Client answers
// each command as Route 53 documents it (its limits per ChangeResourceRecordSets enforced, changes
// PENDING until GetChange says INSYNC, throttling injected), the way DynamoDB faults are injected
// elsewhere. The adapter has not run against AWS itself (docs/dns.md).

interface FakeZone {
  id: string;
  name: string;
  sets: Map<string, ResourceRecordSet>;
  signing: boolean;
  ksks: { Status: string; DSRecord: string }[];
}

/** A Route 53 answering the adapter's commands in memory, behind a real client's middleware stack. */
function fakeRoute53(options: { insyncAfter?: number; faults?: Record<string, string[]> } = {}) {
  const zones = new Map<string, FakeZone>();
  const changes = new Map<string, number>();
  const calls: { command: string; input: Record<string, unknown> }[] = [];
  const faults = options.faults ?? {};
  let next = 0;
  const fail = (name: string, status = 400) =>
    Object.assign(new Error(`${name} (injected)`), { name, $metadata: { httpStatusCode: status } });
  const key = (s: ResourceRecordSet) => `${s.Name} ${s.Type}`;
  const answer = (command: string, input: Record<string, unknown>): Record<string, unknown> => {
    const fault = faults[command]?.shift();
    if (fault) throw fail(fault);
    switch (command) {
      case 'ListHostedZonesByNameCommand': {
        const found = [...zones.values()].filter((z) => z.name >= (input.DNSName as string)).sort((a, b) => a.name.localeCompare(b.name));
        return { HostedZones: found.slice(0, 1).map((z) => ({ Id: z.id, Name: z.name })) };
      }
      case 'CreateHostedZoneCommand': {
        const id = `/hostedzone/Z${++next}`;
        const name = input.Name as string;
        const sets = new Map<string, ResourceRecordSet>();
        const ns: ResourceRecordSet = { Name: name, Type: 'NS', TTL: 172800, ResourceRecords: [{ Value: 'ns-1.awsdns-01.org.' }] };
        const soa: ResourceRecordSet = {
          Name: name,
          Type: 'SOA',
          TTL: 900,
          ResourceRecords: [{ Value: 'ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400' }],
        };
        sets.set(key(ns), ns).set(key(soa), soa);
        zones.set(id, { id, name, sets, signing: false, ksks: [] });
        return { HostedZone: { Id: id, Name: name } };
      }
      case 'ListResourceRecordSetsCommand': {
        const zone = zones.get(input.HostedZoneId as string) as FakeZone;
        const all = [...zone.sets.values()].sort((a, b) => key(a).localeCompare(key(b)));
        const from = input.StartRecordName ? all.findIndex((s) => key(s) >= `${input.StartRecordName} ${input.StartRecordType}`) : 0;
        const page = all.slice(from, from + (input.MaxItems as number));
        const after = all[from + page.length];
        return {
          ResourceRecordSets: page,
          IsTruncated: !!after,
          ...(after ? { NextRecordName: after.Name, NextRecordType: after.Type } : {}),
        };
      }
      case 'ChangeResourceRecordSetsCommand': {
        const zone = zones.get(input.HostedZoneId as string) as FakeZone;
        const batch = (input.ChangeBatch as { Changes: { Action: string; ResourceRecordSet: ResourceRecordSet }[] }).Changes;
        let records = 0;
        let characters = 0;
        for (const c of batch) {
          const values = c.ResourceRecordSet.ResourceRecords ?? [];
          const factor = c.Action === 'UPSERT' ? 2 : 1;
          records += values.length * factor;
          characters += values.reduce((n, r) => n + (r.Value ?? '').length, 0) * factor;
        }
        if (records > route53Limits.records || characters > route53Limits.valueCharacters) throw fail('InvalidChangeBatch');
        for (const c of batch) {
          const k = key(c.ResourceRecordSet);
          if (c.Action === 'DELETE') {
            if (JSON.stringify(zone.sets.get(k)) !== JSON.stringify(c.ResourceRecordSet)) throw fail('InvalidChangeBatch');
            zone.sets.delete(k);
          } else if (
            c.ResourceRecordSet.Type === 'CNAME' &&
            [...zone.sets.values()].some((s) => s.Name === c.ResourceRecordSet.Name && s.Type !== 'CNAME')
          ) {
            throw fail('InvalidChangeBatch');
          } else zone.sets.set(k, c.ResourceRecordSet);
        }
        const id = `/change/C${++next}`;
        changes.set(id, 0);
        return { ChangeInfo: { Id: id, Status: 'PENDING' } };
      }
      case 'GetChangeCommand': {
        const seen = (changes.get(input.Id as string) ?? 0) + 1;
        changes.set(input.Id as string, seen);
        return { ChangeInfo: { Id: input.Id, Status: seen > (options.insyncAfter ?? 1) ? 'INSYNC' : 'PENDING' } };
      }
      case 'GetDNSSECCommand': {
        const zone = zones.get(input.HostedZoneId as string) as FakeZone;
        return { Status: { ServeSignature: zone.signing ? 'SIGNING' : 'NOT_SIGNING' }, KeySigningKeys: zone.ksks };
      }
      case 'CreateKeySigningKeyCommand': {
        const zone = zones.get(input.HostedZoneId as string) as FakeZone;
        zone.ksks.push({ Status: 'ACTIVE', DSRecord: `4242 13 2 ${'ab'.repeat(32)}` });
        return { ChangeInfo: { Id: `/change/C${++next}` } };
      }
      case 'EnableHostedZoneDNSSECCommand':
        (zones.get(input.HostedZoneId as string) as FakeZone).signing = true;
        return { ChangeInfo: { Id: `/change/C${++next}` } };
      case 'DeleteHostedZoneCommand':
        zones.delete(input.Id as string);
        return { ChangeInfo: { Id: `/change/C${++next}` } };
      default:
        throw new Error(`not answered by the test: ${command}`);
    }
  };
  const client = new Route53Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const command = context.commandName as string;
      const input = args.input as Record<string, unknown>;
      calls.push({ command, input });
      return { output: { ...answer(command, input), $metadata: {} }, response: {} } as never;
    },
    { step: 'initialize', name: 'fakeRoute53' },
  );
  return { client, zones, calls };
}

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

import { type ResourceRecordSet, Route53Client } from '@aws-sdk/client-route-53';
import { route53Limits } from '../../shared/dns/route53.ts';

/**
 * Route 53 at the AWS SDK client boundary, for the tests of the Route 53 adapter
 * (test/route53.test.ts) and the DNS contract suite (test/dns-contract.test.ts): a middleware on a
 * real Route53Client answers each command the adapter sends as Route 53 documents it (its limits
 * per ChangeResourceRecordSets enforced, changes PENDING until GetChange says INSYNC, throttling
 * injected), the way DynamoDB faults are injected elsewhere.
 */

interface FakeZone {
  id: string;
  name: string;
  sets: Map<string, ResourceRecordSet>;
  signing: boolean;
  ksks: { Status: string; DSRecord: string }[];
}

/** A Route 53 answering the adapter's commands in memory, behind a real client's middleware stack. */
export function fakeRoute53(options: { insyncAfter?: number; faults?: Record<string, string[]> } = {}) {
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
      case 'DisableHostedZoneDNSSECCommand':
        (zones.get(input.HostedZoneId as string) as FakeZone).signing = false;
        return { ChangeInfo: { Id: `/change/C${++next}` } };
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

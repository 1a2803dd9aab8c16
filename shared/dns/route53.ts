import {
  type Change,
  ChangeResourceRecordSetsCommand,
  CreateHostedZoneCommand,
  CreateKeySigningKeyCommand,
  DeleteHostedZoneCommand,
  DisableHostedZoneDNSSECCommand,
  EnableHostedZoneDNSSECCommand,
  GetChangeCommand,
  GetDNSSECCommand,
  ListHostedZonesByNameCommand,
  ListResourceRecordSetsCommand,
  type ResourceRecordSet,
  Route53Client,
} from '@aws-sdk/client-route-53';
import {
  absoluteName,
  type ChangeHandle,
  DnsChangeRefused,
  type DnsProvider,
  DnsProviderUnavailable,
  type RecordSet,
  type RecordSetChange,
  type ServedZone,
  type ZoneSetup,
} from './provider.ts';

/**
 * The DNS provider on Amazon Route 53 (`@aws-sdk/client-route-53`):
 *
 * - one public hosted zone per managed zone, created in the reusable delegation set
 *   `ROUTE53_DELEGATION_SET_ID` when one is set, so that every zone has the service's own four name
 *   servers (CloudFormation has no resource for a delegation set: create it once with the CLI);
 * - changes go in `ChangeResourceRecordSets` batches within Route 53's limits: at most 1,000
 *   records and 32,000 characters of values per request, an UPSERT counting twice (`batches`);
 *   a batch is atomic, several are not atomic together;
 * - `Throttling` and `PriorRequestNotComplete` are retried with exponential backoff and jitter
 *   (up to 8 attempts, from 200 ms);
 * - a change is served once `GetChange` says `INSYNC` (`isServed`); the sync records a zone as
 *   served only then;
 * - DNSSEC with a key-signing key on the KMS key `ROUTE53_KSK_KMS_KEY_ARN` (ECC_NIST_P256, in
 *   us-east-1, which the stack creates) and `EnableHostedZoneDNSSEC`; DS records from `GetDNSSEC`.
 *
 * Tested at the SDK client boundary only (test/route53.test.ts); it has not run against AWS.
 */

export interface Route53Settings {
  client?: Route53Client;
  delegationSetId?: string;
  kskKmsKeyArn?: string;
  /** Backoff of throttled calls: the first delay in ms (doubled per retry, with jitter). */
  retryBaseMs?: number;
}

/** Route 53's limits per ChangeResourceRecordSets request. */
export const route53Limits = { records: 1000, valueCharacters: 32_000 } as const;
const maxAttempts = 8;
const retryable = new Set(['Throttling', 'ThrottlingException', 'PriorRequestNotComplete']);
/** Route 53's own record sets a plan never changes (its NS and SOA at the apex may be UPSERTed, never deleted). */
const maxReasonLength = 300;

function toResourceRecordSet(set: RecordSet): ResourceRecordSet {
  return {
    Name: absoluteName(set.name),
    Type: set.type as ResourceRecordSet['Type'],
    TTL: set.ttl,
    ResourceRecords: set.values.map((Value) => ({ Value })),
  };
}

/** A name as Route 53 writes it (`\052` for `*`, other octal escapes), back to the port's form. */
function unescapeName(name: string): string {
  return absoluteName(name.replace(/\\(\d{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8))));
}

/** What one change weighs against the limits (an UPSERT counts twice). */
function weight(change: Change): { records: number; characters: number } {
  const values = change.ResourceRecordSet?.ResourceRecords ?? [];
  const factor = change.Action === 'UPSERT' ? 2 : 1;
  return { records: values.length * factor, characters: values.reduce((n, r) => n + (r.Value?.length ?? 0), 0) * factor };
}

/** The changes cut into requests within Route 53's limits, in order; one record set is never split. */
export function batches(changes: RecordSetChange[]): Change[][] {
  const out: Change[][] = [];
  let current: Change[] = [];
  let records = 0;
  let characters = 0;
  for (const change of changes) {
    const item: Change = {
      Action: change.action === 'upsert' ? 'UPSERT' : 'DELETE',
      ResourceRecordSet: toResourceRecordSet(change.recordSet),
    };
    const w = weight(item);
    if (w.records > route53Limits.records || w.characters > route53Limits.valueCharacters) {
      throw new DnsChangeRefused(
        `the record set ${change.recordSet.name} ${change.recordSet.type} is larger than one Route 53 request may carry`,
      );
    }
    if (current.length > 0 && (records + w.records > route53Limits.records || characters + w.characters > route53Limits.valueCharacters)) {
      out.push(current);
      current = [];
      records = 0;
      characters = 0;
    }
    current.push(item);
    records += w.records;
    characters += w.characters;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function bounded(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > maxReasonLength ? `${oneLine.slice(0, maxReasonLength - 1)}…` : oneLine;
}

export class Route53Provider implements DnsProvider {
  readonly name = 'route53';
  private readonly client: Route53Client;
  private readonly settings: Route53Settings;
  private readonly zoneIds = new Map<string, string>();

  constructor(settings: Route53Settings = {}) {
    this.settings = settings;
    // Route 53 is a global service whose API lives in us-east-1.
    this.client = settings.client ?? new Route53Client({ region: 'us-east-1' });
  }

  /** One call, retried with backoff on throttling; Route 53's refusals as DnsChangeRefused, the rest as DnsProviderUnavailable. */
  private async send<T>(command: object): Promise<T> {
    const base = this.settings.retryBaseMs ?? 200;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.client.send(command as never)) as T;
      } catch (error) {
        const name = (error as Error).name;
        if (retryable.has(name) && attempt < maxAttempts) {
          const delay = base * 2 ** (attempt - 1);
          await new Promise((r) => setTimeout(r, delay / 2 + Math.random() * (delay / 2)));
          continue;
        }
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        const message = bounded(`${name}: ${(error as Error).message}`);
        if (
          !retryable.has(name) &&
          status !== undefined &&
          status >= 400 &&
          status < 500 &&
          !/AccessDenied|Credentials|Signature/i.test(name)
        ) {
          throw new DnsChangeRefused(message);
        }
        throw new DnsProviderUnavailable(`Route 53 failed: ${message}`);
      }
    }
  }

  /** The hosted zone's id, or undefined when Route 53 has none of that name. */
  private async zoneId(zoneName: string): Promise<string | undefined> {
    const name = absoluteName(zoneName);
    const known = this.zoneIds.get(name);
    if (known) return known;
    const out = await this.send<{ HostedZones?: { Id?: string; Name?: string }[] }>(
      new ListHostedZonesByNameCommand({ DNSName: name, MaxItems: 1 }),
    );
    const zone = out.HostedZones?.find((z) => z.Name !== undefined && absoluteName(z.Name) === name);
    if (!zone?.Id) return undefined;
    this.zoneIds.set(name, zone.Id);
    return zone.Id;
  }

  private async recordSets(zoneId: string): Promise<RecordSet[]> {
    const sets: RecordSet[] = [];
    let start: { StartRecordName?: string; StartRecordType?: ResourceRecordSet['Type']; StartRecordIdentifier?: string } = {};
    for (;;) {
      const out = await this.send<{
        ResourceRecordSets?: ResourceRecordSet[];
        IsTruncated?: boolean;
        NextRecordName?: string;
        NextRecordType?: ResourceRecordSet['Type'];
        NextRecordIdentifier?: string;
      }>(new ListResourceRecordSetsCommand({ HostedZoneId: zoneId, MaxItems: 300, ...start }));
      for (const set of out.ResourceRecordSets ?? []) {
        if (!set.Name || !set.Type || !set.ResourceRecords) continue;
        sets.push({
          name: unescapeName(set.Name),
          type: set.Type,
          ttl: set.TTL ?? 0,
          values: set.ResourceRecords.map((r) => r.Value ?? ''),
        });
      }
      if (!out.IsTruncated) return sets;
      start = {
        ...(out.NextRecordName !== undefined && { StartRecordName: out.NextRecordName }),
        ...(out.NextRecordType !== undefined && { StartRecordType: out.NextRecordType }),
        ...(out.NextRecordIdentifier !== undefined && { StartRecordIdentifier: out.NextRecordIdentifier }),
      };
    }
  }

  private async dnssecOf(zoneId: string): Promise<{ signed: boolean; ds: string[] }> {
    const out = await this.send<{ Status?: { ServeSignature?: string }; KeySigningKeys?: { Status?: string; DSRecord?: string }[] }>(
      new GetDNSSECCommand({ HostedZoneId: zoneId }),
    );
    const signed = out.Status?.ServeSignature === 'SIGNING';
    const ds = (out.KeySigningKeys ?? []).filter((k) => k.Status === 'ACTIVE' && k.DSRecord).map((k) => k.DSRecord as string);
    return { signed, ds: signed ? ds : [] };
  }

  async zone(zoneName: string): Promise<ServedZone | undefined> {
    const id = await this.zoneId(zoneName);
    if (!id) return undefined;
    const [recordSets, dnssec] = await Promise.all([this.recordSets(id), this.dnssecOf(id)]);
    return { name: absoluteName(zoneName), recordSets, dnssec: dnssec.signed, ds: dnssec.ds };
  }

  async createZone(zoneName: string, setup: ZoneSetup): Promise<void> {
    const out = await this.send<{ HostedZone?: { Id?: string } }>(
      new CreateHostedZoneCommand({
        Name: absoluteName(zoneName),
        CallerReference: `${absoluteName(zoneName)}${Date.now()}`,
        HostedZoneConfig: { Comment: 'managed zone of the registrar', PrivateZone: false },
        ...(this.settings.delegationSetId ? { DelegationSetId: this.settings.delegationSetId } : {}),
      }),
    );
    if (out.HostedZone?.Id) this.zoneIds.set(absoluteName(zoneName), out.HostedZone.Id);
    if (setup.dnssec) await this.setDnssec(zoneName, true);
  }

  async deleteZone(zoneName: string): Promise<void> {
    const id = await this.zoneId(zoneName);
    if (!id) return;
    // Route 53 deletes only an empty hosted zone: everything but its apex SOA and NS goes first.
    const apex = absoluteName(zoneName);
    const removable = (await this.recordSets(id)).filter((s) => !(s.name === apex && (s.type === 'SOA' || s.type === 'NS')));
    if (removable.length > 0)
      await this.applyChanges(
        zoneName,
        removable.map((recordSet) => ({ action: 'delete', recordSet })),
      );
    await this.send(new DeleteHostedZoneCommand({ Id: id }));
    this.zoneIds.delete(apex);
  }

  async setDnssec(zoneName: string, enabled: boolean): Promise<string[]> {
    const id = await this.zoneId(zoneName);
    if (!id) throw new DnsProviderUnavailable(`Route 53 has no hosted zone ${zoneName}`);
    if (!enabled) {
      await this.send(new DisableHostedZoneDNSSECCommand({ HostedZoneId: id }));
      return [];
    }
    if (!this.settings.kskKmsKeyArn) throw new DnsChangeRefused('DNSSEC on Route 53 needs ROUTE53_KSK_KMS_KEY_ARN (the stack sets it)');
    const current = await this.dnssecOf(id);
    if (current.ds.length === 0) {
      await this.send(
        new CreateKeySigningKeyCommand({
          HostedZoneId: id,
          KeyManagementServiceArn: this.settings.kskKmsKeyArn,
          Name: 'registrar_ksk',
          Status: 'ACTIVE',
          CallerReference: `${id}-ksk-${Date.now()}`,
        }),
      );
    }
    await this.send(new EnableHostedZoneDNSSECCommand({ HostedZoneId: id }));
    return (await this.dnssecOf(id)).ds;
  }

  async applyChanges(zoneName: string, changes: RecordSetChange[]): Promise<ChangeHandle> {
    const id = await this.zoneId(zoneName);
    if (!id) throw new DnsProviderUnavailable(`Route 53 has no hosted zone ${zoneName}`);
    const ids: string[] = [];
    for (const batch of batches(changes)) {
      const out = await this.send<{ ChangeInfo?: { Id?: string } }>(
        new ChangeResourceRecordSetsCommand({ HostedZoneId: id, ChangeBatch: { Changes: batch } }),
      );
      if (out.ChangeInfo?.Id) ids.push(out.ChangeInfo.Id);
    }
    return { zone: absoluteName(zoneName), ...(ids.length > 0 ? { id: ids.join(' ') } : {}) };
  }

  async isServed(change: ChangeHandle): Promise<boolean> {
    if (!change.id) return true;
    for (const id of change.id.split(' ')) {
      const out = await this.send<{ ChangeInfo?: { Status?: string } }>(new GetChangeCommand({ Id: id }));
      if (out.ChangeInfo?.Status !== 'INSYNC') return false;
    }
    return true;
  }
}

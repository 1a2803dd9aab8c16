/**
 * The DNS provider port: what the service needs of whatever serves its zones over DNS. Two real
 * adapters sit behind it, chosen by the stage's `DNS_PROVIDER` setting: PowerDNS Authoritative's
 * HTTP API (shared/dns/powerdns.ts) and Amazon Route 53 (shared/dns/route53.ts).
 *
 * Like external-dns's provider, it is essentially "what do you serve now" (`zone`) and "apply
 * these changes" (`applyChanges`); what to change is computed apart, by a pure plan (desired
 * record sets against served ones). Zones are created and removed, DNSSEC is switched, and a
 * change can be asked whether it is served yet (Route 53 answers `INSYNC` some seconds after a
 * change; PowerDNS serves a change once its API call returned).
 *
 * Names are absolute with their trailing dot and lower-case (`www.example.com.`); record values
 * are RFC 1035 presentation form with absolute host names (`10 mail.example.com.`, TXT quoted:
 * `"v=spf1 -all"`), which both PowerDNS and Route 53 take and give.
 */

/** One record set (RRset): every record of one name and type, with one TTL. */
export interface RecordSet {
  name: string;
  type: string;
  ttl: number;
  /** The records' values in presentation form; a set, in no particular order. */
  values: string[];
}

/** A zone as a provider serves it now. */
export interface ServedZone {
  /** The zone's name, absolute (`example.com.`). */
  name: string;
  /** Every record set the provider serves in the zone, the SOA and NS sets included. */
  recordSets: RecordSet[];
  /** Whether the provider signs the zone. */
  dnssec: boolean;
  /** The DS records of the zone's key-signing key(s), presentation form; empty when unsigned. */
  ds: string[];
  /** The DNSKEY records of those keys (`257 3 13 <base64>`), where the provider tells them; empty when unsigned. */
  dnskeys?: string[];
}

/** How a new zone is set up: the name servers it names at its apex, and whether it is signed. */
export interface ZoneSetup {
  /** Absolute host names (`ns1.example.net.`). */
  nameServers: string[];
  dnssec: boolean;
}

/**
 * A change to one record set. `delete` carries the record set as served (Route 53 deletes a
 * set only when given its exact values; PowerDNS needs only name and type).
 */
export interface RecordSetChange {
  action: 'upsert' | 'delete';
  recordSet: RecordSet;
}

/** What `applyChanges` returns: enough for `isServed` to tell when the change answers on DNS. */
export interface ChangeHandle {
  zone: string;
  /** The provider's id of the change (Route 53's change id); absent where a change is served once applied. */
  id?: string;
}

/**
 * The provider refused a change or a zone for what it is (a record it will not serve, a name it
 * does not accept): sending it again changes nothing. `reason` is the provider's own words, bounded.
 */
export class DnsChangeRefused extends Error {
  constructor(readonly reason: string) {
    super(`The DNS provider refused the change: ${reason}`);
  }
}

/** The provider could not be reached or failed for a passing reason: the same call may work later. */
export class DnsProviderUnavailable extends Error {}

/**
 * How often a zone was asked for, as far as the provider counts it: `queries` answered for names
 * of the zone, `nxdomain` of them for a name the zone does not hold, over `window` (what the
 * provider's counts cover, in its words).
 */
export interface ZoneQueryCounts {
  queries: number;
  nxdomain: number;
  window: string;
}

/** The port every DNS adapter implements. */
export interface DnsProvider {
  /** The adapter's name as `DNS_PROVIDER` spells it. */
  readonly name: string;
  /** The zone as served now; undefined when the provider does not host it. */
  zone(zoneName: string): Promise<ServedZone | undefined>;
  /** Creates the zone (empty but for its SOA and NS sets). Creating a zone that exists is refused. */
  createZone(zoneName: string, setup: ZoneSetup): Promise<void>;
  /** Removes the zone and everything in it; a zone that does not exist is no error. */
  deleteZone(zoneName: string): Promise<void>;
  /** Signs or stops signing the zone; the DS records to publish at the parent (empty when unsigned). */
  setDnssec(zoneName: string, enabled: boolean): Promise<string[]>;
  /** Applies the changes to record sets of one zone, all or (where the provider allows) none. */
  applyChanges(zoneName: string, changes: RecordSetChange[]): Promise<ChangeHandle>;
  /** Whether a change applied earlier answers on the provider's name servers yet. */
  isServed(change: ChangeHandle): Promise<boolean>;
  /**
   * Optional, for a provider that counts the queries it answers (PowerDNS): the zone's counts.
   * Route 53 keeps none that an API reads (its query logs go to CloudWatch Logs), the sandbox
   * answers no queries; neither has the method.
   */
  queryCounts?(zoneName: string): Promise<ZoneQueryCounts>;
  /**
   * Optional, for a provider whose signing keys the service rolls (PowerDNS; see
   * `keyRolloverProviders`): adds a new signing key to a signed zone, served beside its keys.
   */
  addSigningKey?(zoneName: string): Promise<void>;
  /** With addSigningKey: removes the zone's signing keys whose DNSKEY (`257 3 13 <base64>`) is listed; never its last key. */
  removeSigningKeys?(zoneName: string, dnskeys: readonly string[]): Promise<void>;
}

/** The providers whose signing keys the service rolls over (they have addSigningKey and removeSigningKeys). */
export const keyRolloverProviders: readonly string[] = ['powerdns'];

/** A name absolute and lower-case, as the port speaks it (`Example.COM` -> `example.com.`). */
export function absoluteName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}

/** Puts one record set into a zone (replacing the set of that name and type): the dns-01 challenge's "present". */
export function putRecordSet(provider: DnsProvider, zoneName: string, recordSet: RecordSet): Promise<ChangeHandle> {
  return provider.applyChanges(zoneName, [{ action: 'upsert', recordSet }]);
}

/** Removes one record set, as it was put, from a zone: the dns-01 challenge's "clean up". */
export function removeRecordSet(provider: DnsProvider, zoneName: string, recordSet: RecordSet): Promise<ChangeHandle> {
  return provider.applyChanges(zoneName, [{ action: 'delete', recordSet }]);
}

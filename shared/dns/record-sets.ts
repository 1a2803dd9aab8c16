import type { ZoneRecord } from '../model/zone.ts';
import type { DnsConfig } from './config.ts';
import { absoluteName, type RecordSet } from './provider.ts';
import { renderZone } from './zone.ts';
import { absolute, rdata } from './zone-file.ts';
import type { DnsRecord } from './zone-view.ts';

/**
 * What a zone serves over DNS, as record sets for a DNS provider: the zone as GET .../zone answers
 * it (`##DOMAIN##` replaced; the service's SOA and NS records, then the zone's records and its DCV
 * records), grouped by name and type. Pure: the sync and the reconcile job compare it with what
 * the provider serves (shared/dns/plan.ts).
 *
 * - Values are in presentation form with absolute host names (shared/dns/zone-file.ts writes the
 *   same RDATA into zone files): MX and SRV carry their priority first, TXT is quoted and cut in
 *   strings of 255 bytes.
 * - A record set has one TTL (RFC 2181 5.2): records of one name and type with different TTLs
 *   are served with the smallest of them.
 * - Not served over DNS: the service types without a DNS record type (ALIAS, URL, MBOXFW, which the
 *   zone file lists as comments too), and a customer's own SOA record (the zone has the service's).
 */

/** Record kinds that are services of the registrar, not DNS types: never pushed to a DNS server. */
export const serviceTypes: ReadonlySet<string> = new Set(['ALIAS', 'URL', 'MBOXFW']);

/** The value of one record in presentation form; undefined when it is not served over DNS. */
export function recordValue(record: DnsRecord): string | undefined {
  if (serviceTypes.has(record.type)) return undefined;
  if (record.type === 'SOA') {
    const [mname = '', rname = '', ...numbers] = record.content.trim().split(/\s+/);
    return [absolute(mname.toLowerCase()), absolute(rname.toLowerCase()), ...numbers].join(' ');
  }
  return rdata(record);
}

/** A record set's identity: absolute lower-case name and type. */
export function recordSetKey(set: Pick<RecordSet, 'name' | 'type'>): string {
  return `${absoluteName(set.name)} ${set.type}`;
}

/** Groups records into record sets (first appearance order; duplicate values once; the smallest TTL). */
export function groupRecordSets(records: readonly DnsRecord[]): RecordSet[] {
  const sets = new Map<string, RecordSet>();
  for (const record of records) {
    const value = recordValue(record);
    if (value === undefined) continue;
    const name = absoluteName(record.name);
    const key = recordSetKey({ name, type: record.type });
    const set = sets.get(key);
    if (!set) sets.set(key, { name, type: record.type, ttl: record.ttl, values: [value] });
    else {
      set.ttl = Math.min(set.ttl, record.ttl);
      if (!set.values.includes(value)) set.values.push(value);
    }
  }
  return [...sets.values()];
}

/** Every record set a zone serves: the service's SOA and NS, then its records and DCV records. */
export function desiredRecordSets(zone: ZoneRecord, config?: DnsConfig): RecordSet[] {
  const view = renderZone(zone, config);
  return groupRecordSets([...view.defaultRecords, ...view.records.filter((r) => r.type !== 'SOA')]);
}

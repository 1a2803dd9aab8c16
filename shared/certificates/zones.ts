import { getZonesByName } from '../db/repositories/zones.ts';
import type { AddedDcvRecord, Validations } from '../model/certificate-process.ts';
import type { ZoneRecord, ZoneRecordEntry } from '../model/zone.ts';
import { nameAndParents } from './dcv.ts';

/**
 * The zone the service manages for each name of a request, for this customer: the zone of the name
 * itself or of its closest parent. One BatchGet for all names. A zone of another customer, or one
 * the service does not manage, counts as not managed here.
 */
export async function managedZonesFor(customer: string, names: readonly string[]): Promise<Map<string, ZoneRecord | undefined>> {
  return pickManagedZones(customer, names, await getZonesByName(zoneCandidates(names)));
}

/** The zone names that may serve `names` (each name and its parents), to read in one batch. */
export function zoneCandidates(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((n) => nameAndParents(n)))];
}

/**
 * managedZonesFor over zones already read (any superset of the candidates of `names`, so a caller
 * can read them along with its other items).
 */
export function pickManagedZones(
  customer: string,
  names: readonly string[],
  read: readonly ZoneRecord[],
): Map<string, ZoneRecord | undefined> {
  const zones = new Map<string, ZoneRecord>();
  for (const zone of read) {
    if (zone.customer === customer && zone.managed) zones.set(zone.domainName, zone);
  }
  const out = new Map<string, ZoneRecord | undefined>();
  for (const name of names)
    out.set(
      name,
      nameAndParents(name)
        .map((c) => zones.get(c))
        .find((z) => z !== undefined),
    );
  return out;
}

/** TTL of the DCV records the service adds to a managed zone. */
const dcvRecordTtl = 300;

/**
 * The DNS DCV records the service adds to the customer's managed zones, per zone: each record
 * once, and none a zone already holds. Zones with nothing to add are left out.
 */
export function dcvRecordsToAdd(
  validations: Validations,
  zones: Map<string, ZoneRecord | undefined>,
): [zone: string, records: ZoneRecordEntry[]][] {
  const out = new Map<string, ZoneRecordEntry[]>();
  for (const entry of validations.dcv) {
    if (entry.type !== 'DNS' || !entry.zone || !entry.dnsRecord || !entry.dnsType || !entry.dnsContents) continue;
    const zone = zones.get(entry.commonName);
    if (!zone) continue;
    const present = zone.records.some((r) => r.name === entry.dnsRecord && r.type === entry.dnsType && r.content === entry.dnsContents);
    const list = out.get(zone.domainName) ?? [];
    if (!present && !list.some((r) => r.name === entry.dnsRecord)) {
      list.push({ name: entry.dnsRecord, type: entry.dnsType, content: entry.dnsContents, ttl: dcvRecordTtl });
    }
    out.set(zone.domainName, list);
  }
  return [...out].filter(([, records]) => records.length > 0);
}

/** The records of dcvRecordsToAdd as the process keeps them (so that a cancellation removes exactly these). */
export function addedDcvRecords(toAdd: readonly [zone: string, records: ZoneRecordEntry[]][]): AddedDcvRecord[] {
  return toAdd.flatMap(([zone, records]) =>
    records.flatMap((r) => (r.type === 'CNAME' || r.type === 'TXT' ? [{ zone, name: r.name, type: r.type, content: r.content }] : [])),
  );
}

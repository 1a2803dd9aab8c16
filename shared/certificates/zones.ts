import { getZoneHeadsByName, withRecords, type ZoneHead } from '../db/repositories/zones.ts';
import type { Validations } from '../model/certificate-process.ts';
import { servedRecords, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import { nameAndParents } from './dcv.ts';

/**
 * The zone the service manages for each name of a request, for this customer, with its records:
 * the zone of the name itself or of its closest parent. One BatchGet of the candidates' headers,
 * then one Query of the records of each zone picked (a zone of another customer, or one the
 * service does not manage, counts as not managed here, and its records are never read).
 */
export async function managedZonesFor(customer: string, names: readonly string[]): Promise<Map<string, ZoneRecord | undefined>> {
  return loadManagedZones(customer, names, await getZoneHeadsByName(zoneCandidates(names)));
}

/** The zone names that may serve `names` (each name and its parents), to read in one batch. */
export function zoneCandidates(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((n) => nameAndParents(n)))];
}

/**
 * managedZonesFor over zone headers already read (any superset of the candidates of `names`, so a
 * caller can read them along with its other items): picks each name's zone among the customer's
 * managed ones, then reads the records of the zones picked, in parallel.
 */
export async function loadManagedZones(
  customer: string,
  names: readonly string[],
  read: readonly ZoneHead[],
): Promise<Map<string, ZoneRecord | undefined>> {
  const heads = new Map<string, ZoneHead>();
  for (const head of read) {
    if (head.zone.customer === customer && head.zone.managed) heads.set(head.zone.domainName, head);
  }
  const picked = new Map<string, ZoneHead | undefined>();
  for (const name of names)
    picked.set(
      name,
      nameAndParents(name)
        .map((c) => heads.get(c))
        .find((h) => h !== undefined),
    );
  const used = [...new Set([...picked.values()].filter((h) => h !== undefined))];
  const zones = new Map((await Promise.all(used.map(withRecords))).map((zone) => [zone.domainName, zone]));
  return new Map([...picked].map(([name, head]) => [name, head && zones.get(head.zone.domainName)]));
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
    const present = servedRecords(zone).some(
      (r) => r.name === entry.dnsRecord && r.type === entry.dnsType && r.content === entry.dnsContents,
    );
    const list = out.get(zone.domainName) ?? [];
    if (!present && !list.some((r) => r.name === entry.dnsRecord)) {
      list.push({ name: entry.dnsRecord, type: entry.dnsType, content: entry.dnsContents, ttl: dcvRecordTtl });
    }
    out.set(zone.domainName, list);
  }
  return [...out].filter(([, records]) => records.length > 0);
}

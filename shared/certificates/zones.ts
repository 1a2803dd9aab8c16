import { getZoneHeadsByName, withRecords, type ZoneHead } from '../db/repositories/zones.ts';
import type { AddedDcvRecord, Validations } from '../model/certificate-process.ts';
import { servedRecords, type ZoneRecord, type ZoneRecordEntry } from '../model/zone.ts';
import { dcvBase } from './dcv.ts';

/**
 * Where the zones of a request's names are looked for, bounded whatever the names: a zone serves
 * a registrable domain or a name below it, so the walk from a name goes up to its registrable
 * domain and no further, taken as its last two labels (without the public suffix list, whose code
 * and data would double a function's bundle: under a two-label suffix such as `co.uk` that one
 * name is read too, and holds no zone); and down from there at most `maxZoneLabels` labels deep.
 * A request reads at most `maxZoneCandidates` names in all, the shallowest first: a name's
 * registrable domain is always among them.
 */
export const maxZoneLabels = 6;
export const maxZoneCandidates = 100;

/** The names a zone serving `name` may have, the registrable domain first: `a.b.example.nl` -> `example.nl`, `b.example.nl`, `a.b.example.nl`. */
export function zoneNamesOf(name: string): string[] {
  const labels = dcvBase(name).split('.');
  const out: string[] = [];
  for (let depth = 2; depth <= Math.min(labels.length, maxZoneLabels); depth++) out.push(labels.slice(-depth).join('.'));
  return out;
}

/**
 * The zone names to read for a request's names: each name's candidates, shallowest first across
 * all names (every registrable domain, then one label deeper, ...), each once, at most `maxZoneCandidates`.
 */
export function zoneCandidates(names: readonly string[]): string[] {
  const perName = names.map(zoneNamesOf);
  const out = new Set<string>();
  for (let depth = 0; depth < maxZoneLabels; depth++) {
    for (const candidates of perName) {
      const candidate = candidates[depth];
      if (candidate === undefined) continue;
      if (out.size >= maxZoneCandidates && !out.has(candidate)) return [...out];
      out.add(candidate);
    }
  }
  return [...out];
}

/**
 * The zone the service manages for each name of a request, for this customer, with its records:
 * the zone of the name itself or of its closest parent, among the bounded candidates. One BatchGet
 * of the candidates' headers, then one Query of the records of each zone picked (a zone of another
 * customer, or one the service does not manage, counts as not managed here, and its records are
 * never read).
 */
export async function managedZonesFor(customer: string, names: readonly string[]): Promise<Map<string, ZoneRecord | undefined>> {
  return loadManagedZones(customer, names, await getZoneHeadsByName(zoneCandidates(names)));
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
      zoneNamesOf(name)
        .reverse()
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

/** The records of dcvRecordsToAdd as the process keeps them (so that a cancellation removes exactly these). */
export function addedDcvRecords(toAdd: readonly [zone: string, records: ZoneRecordEntry[]][]): AddedDcvRecord[] {
  return toAdd.flatMap(([zone, records]) =>
    records.flatMap((r) => (r.type === 'CNAME' || r.type === 'TXT' ? [{ zone, name: r.name, type: r.type, content: r.content }] : [])),
  );
}

import { batchGetAll, parseItem } from '../db/items.ts';
import { keys } from '../db/keys.ts';
import { zoneEntity } from '../db/repositories/zones.ts';
import { type ZoneRecord, ZoneRecord as ZoneSchema } from '../model/zone.ts';
import { nameAndParents } from './dcv.ts';

/**
 * The zone the service manages for each name of a request, for this customer: the zone of the name
 * itself or of its closest parent. One BatchGet for all names. A zone of another customer, or one
 * the service does not manage, counts as not managed here.
 */
export async function managedZonesFor(customer: string, names: readonly string[]): Promise<Map<string, ZoneRecord | undefined>> {
  const candidates = zoneCandidates(names);
  const items = candidates.length ? await batchGetAll(candidates.map((c) => keys.zoneByName(c))) : [];
  return pickManagedZones(customer, names, items);
}

/** The zone names that may serve `names` (each name and its parents), to read in one batch. */
export function zoneCandidates(names: readonly string[]): string[] {
  return [...new Set(names.flatMap((n) => nameAndParents(n)))];
}

/**
 * managedZonesFor over zone items already read (any superset of the candidates of `names`, so a
 * caller can read them along with its other items).
 */
export function pickManagedZones(
  customer: string,
  names: readonly string[],
  items: readonly Record<string, unknown>[],
): Map<string, ZoneRecord | undefined> {
  const zones = new Map<string, ZoneRecord>();
  for (const item of items) {
    const zone = parseItem(ZoneSchema, zoneEntity, item);
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

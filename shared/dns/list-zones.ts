import { countZonesAlong, readZoneHeadPage, type ZoneHead } from '../db/repositories/zones.ts';
import { ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listPage } from '../listing/page.ts';
import { type ZoneFilterField, type ZoneQuery, zoneListSpec } from './list-request.ts';
import { renderZone } from './zone.ts';
import type { ZoneListEntry, ZoneListField, ZonePage } from './zone-view.ts';

/**
 * The caller's zones, a page at a time (`GET /v2/dns/zones`): the generic listing
 * (shared/listing/page.ts) over the customer's zone headers on gsi1 (`ZONES#<customer>`, by name).
 * Without filters the partition holds exactly the matches: `offset` is skipped and `total` counted
 * over keys only (gsi1keys, Select COUNT); with filters or `q`, the headers are read in name order
 * and checked, at most maxZonesPerCustomer of them (a customer has no more). A listed zone has
 * no records: they are read with the zone (`GET /v2/dns/zones/{id}`).
 */

/** The most zones a customer holds: `ZONES_PER_CUSTOMER_MAX`, default 1,000 (docs/zones-api.md). */
export function maxZonesPerCustomer(): number {
  const value = Number(process.env.ZONES_PER_CUSTOMER_MAX ?? 1000);
  return Number.isInteger(value) && value > 0 ? value : 1000;
}

const tooBroad = (max: number) => new ValidationError(`This listing would read more than ${max} zones. Narrow it with filters.`);

function fieldValue(head: ZoneHead, field: ZoneFilterField): string | undefined {
  const zone = head.zone;
  const value = field === 'name' ? zone.domainName : zone[field];
  return value === undefined ? undefined : String(value);
}

/** A listed zone: the view without records, only the `fields` asked for. */
function entry(head: ZoneHead, fields: readonly ZoneListField[] | undefined): Partial<ZoneListEntry> {
  const { records: _, dns: __, ...view } = renderZone({ ...head.zone, records: [], dcvRecords: [] });
  if (fields === undefined) return view;
  return Object.fromEntries(fields.filter((f) => view[f] !== undefined).map((f) => [f, view[f]]));
}

function zoneSource(customer: string): ListingSource<ZoneHead> {
  return {
    readPage: async (options) => {
      const page = await readZoneHeadPage(customer, options);
      return { records: page.heads, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: async (count, ascending) => {
      const { counted, next } = await countZonesAlong(customer, count, ascending);
      return counted === count ? next : undefined;
    },
  };
}

export async function listZones(customer: string, query: ZoneQuery): Promise<ZonePage> {
  const max = maxZonesPerCustomer();
  const exact = query.filters.length === 0 && query.search === undefined;
  const plan: ListingPlan<ZoneHead> = {
    source: zoneSource(customer),
    exact,
    ...(exact ? { count: async () => (await countZonesAlong(customer, max + 1, true)).counted } : {}),
  };
  return (await listPage(plan, query, {
    matches: matcherOf(zoneListSpec, fieldValue, query.filters, query.search),
    summaryOf: (head) => head,
    view: (head) => entry(head, query.fields),
    maxRead: max,
    maxExport: max,
    tooBroad,
    tooLarge: tooBroad,
  })) as ZonePage;
}

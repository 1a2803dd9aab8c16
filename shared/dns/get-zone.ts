import { getZoneDnsState } from '../db/repositories/zone-dns.ts';
import { getOwnZoneById, getZoneHeadById, withRecords } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ZoneRecord } from '../model/zone.ts';
import type { ZoneDnsState } from '../model/zone-dns.ts';
import { dnsView, keyDataOf } from './domain-zone.ts';
import { renderZone } from './zone.ts';
import type { VersionedZone } from './zone-view.ts';

/**
 * A zone of the caller by its id (`GET /v2/dns/zones/{id}`, the SDKs' dnsZones->get): the caller's
 * items of that zone (header, records, DNS standing) in one Query of their partition by id; another
 * customer's zone answers like a missing one, at the same cost. Where that partition holds no whole
 * zone (the index lagging a write, items not yet migrated), found by id on the table's terms: the
 * header, then its records and DNS standing. With a DNS provider, whether it serves the zone as
 * shown (`dns`).
 */
export async function zoneById(customer: string, id: number): Promise<VersionedZone> {
  const { zone, revision, dns } = (await getOwnZoneById(customer, id)) ?? (await zoneByIdFromTable(customer, id));
  const view = renderZone(zone);
  const provider = process.env.DNS_PROVIDER;
  if (provider && provider !== 'sandbox') {
    view.dns = dnsView(provider, revision, dns);
    if (zone.dnssec && dns?.provider === provider && dns.dnskeys?.length) view.keyData = keyDataOf(dns.dnskeys);
  }
  return { view, revision };
}

/** The zone by id read on the table's terms (the header by id, then its records and DNS standing): how it was read before its partition by id. */
export async function zoneByIdFromTable(customer: string, id: number): Promise<{ zone: ZoneRecord; revision: number; dns?: ZoneDnsState }> {
  const head = await getZoneHeadById(customer, id);
  if (!head) throw new ObjectDoesNotExist('Zone', String(id));
  const [zone, dns] = await Promise.all([withRecords(head), getZoneDnsState(head.zone.domainName)]);
  if (zone.customer !== customer) throw new ObjectDoesNotExist('Zone', String(id));
  return { zone, revision: head.revision, ...(dns ? { dns } : {}) };
}

import { getZoneDnsState } from '../db/repositories/zone-dns.ts';
import { getZoneHeadById, withRecords } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { dnsView, keyDataOf } from './domain-zone.ts';
import { renderZone } from './zone.ts';
import type { VersionedZone } from './zone-view.ts';

/**
 * A zone of the caller by its id (`GET /v2/dns/zones/{id}`, the SDKs' dnsZones->get): found on
 * the index by id with the table filtering to the caller's (another customer's zone answers like a
 * missing one, at the same cost), then its records; with a DNS provider, whether it serves the zone
 * as shown (`dns`).
 */
export async function zoneById(customer: string, id: number): Promise<VersionedZone> {
  const head = await getZoneHeadById(customer, id);
  if (!head) throw new ObjectDoesNotExist('Zone', String(id));
  const [zone, state] = await Promise.all([withRecords(head), getZoneDnsState(head.zone.domainName)]);
  if (zone.customer !== customer) throw new ObjectDoesNotExist('Zone', String(id));
  const view = renderZone(zone);
  const provider = process.env.DNS_PROVIDER;
  if (provider && provider !== 'sandbox') {
    view.dns = dnsView(provider, head.revision, state);
    if (zone.dnssec && state?.provider === provider && state.dnskeys?.length) view.keyData = keyDataOf(state.dnskeys);
  }
  return { view, revision: head.revision };
}

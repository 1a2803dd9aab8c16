import { getZoneHeadById } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist, ProviderUnavailable } from '../errors.ts';
import { now } from '../time.ts';
import { DnsProviderUnavailable } from './provider.ts';
import type { ZoneStatsView } from './zone-stats-view.ts';

/**
 * A zone's query counts (`GET /v2/dns/zones/{id}/stats`, the PHP client's dnsZones->statistics,
 * the TypeScript client's dnsZone.stats): `queries`, a list of days, each with the queries answered
 * for the zone's names (`qcount`) and those of them answered NXDOMAIN (`nxcount`).
 *
 * Only the caller's zone is asked about (another customer's answers like a missing one, before the
 * provider is called). The counts are the provider's: PowerDNS counts the last 10,000 queries it
 * answered, so the list holds one day, today (UTC), with the zone's share of that window; a
 * provider that keeps no counts an API reads (Route 53, the sandbox) answers an empty list.
 */
export async function zoneStats(customer: string, id: number): Promise<ZoneStatsView> {
  const head = await getZoneHeadById(customer, id);
  if (!head) throw new ObjectDoesNotExist('Zone', String(id));
  // A function of a stage without a DNS provider (DNS_PROVIDER unset) has no counts to read.
  const dns = process.env.DNS_PROVIDER ? (await import('./select.ts')).dnsProvider() : undefined;
  if (!dns?.queryCounts) return { queries: [] };
  try {
    const counts = await dns.queryCounts(head.zone.domainName);
    return { queries: [{ date: now().toISOString().slice(0, 10), qcount: counts.queries, nxcount: counts.nxdomain }] };
  } catch (error) {
    if (error instanceof DnsProviderUnavailable) throw new ProviderUnavailable('The DNS provider did not answer; retry.');
    throw error;
  }
}

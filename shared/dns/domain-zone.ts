import { getDomainAndZone } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { renderZone } from './zone.ts';
import type { ZoneView } from './zone-view.ts';

/**
 * The zone of a domain in the caller's account (contract 3.6), from one paged Query of the domain's
 * item collection (one call when it fits a page). A domain of another customer answers like an
 * unknown one (404 Domain), after the same one call: the zone's records are read past the first
 * page only for the caller's own zone. A domain of the caller's without a zone answers 404 Zone.
 */
export async function domainZone(customer: string, domainName: string): Promise<ZoneView> {
  const { domain, zone } = await getDomainAndZone(
    domainName,
    (found) => found.domain?.customer === customer && found.zone?.customer === customer,
  );
  if (!domain || domain.customer !== customer) throw new ObjectDoesNotExist('Domain', domainName);
  if (!zone || zone.customer !== customer) throw new ObjectDoesNotExist('Zone', domainName);
  return renderZone(zone);
}

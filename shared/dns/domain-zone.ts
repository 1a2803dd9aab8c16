import { getDomainAndZone } from '../db/repositories/zones.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { renderZone } from './zone.ts';
import type { ZoneView } from './zone-view.ts';

/**
 * The zone of a domain in the caller's account (contract 3.6), from one paged Query of the domain's
 * item collection that the table filters to the caller's items (one call when it fits a page). A
 * domain of another customer answers like an unknown one (404 Domain), with the same call and the
 * same empty answer; a domain of the caller's without a zone answers 404 Zone.
 */
export async function domainZone(customer: string, domainName: string): Promise<ZoneView> {
  const { domain, zone } = await getDomainAndZone(domainName, customer);
  if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
  if (!zone) throw new ObjectDoesNotExist('Zone', domainName);
  return renderZone(zone);
}

import { getDomainAndZoneOf } from '../db/repositories/domains.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { renderZone } from './zone.ts';
import type { ZoneView } from './zone-view.ts';

/**
 * The zone of a domain in the caller's account (contract 3.6), from one Query of the domain's item
 * collection that the table filters to the caller's items. A domain of another customer answers
 * like an unknown one (404 Domain), with the same call and the same empty answer; a domain of the
 * caller's without a zone answers 404 Zone.
 */
export async function domainZone(customer: string, domainName: string): Promise<ZoneView> {
  const { domain, zone } = await getDomainAndZoneOf(customer, domainName);
  if (!domain) throw new ObjectDoesNotExist('Domain', domainName);
  if (!zone) throw new ObjectDoesNotExist('Zone', domainName);
  return renderZone(zone);
}

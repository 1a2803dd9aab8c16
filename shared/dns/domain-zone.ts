import { getDomainAndZone } from '../db/repositories/domains.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import { renderZone } from './zone.ts';
import type { ZoneView } from './zone-view.ts';

/**
 * The zone of a domain in the caller's account (contract 3.6), from one Query of the domain's item
 * collection. A domain of another customer answers like an unknown one (404 Domain); a domain of
 * the caller's without a zone answers 404 Zone.
 */
export async function domainZone(customer: string, domainName: string): Promise<ZoneView> {
  const { domain, zone } = await getDomainAndZone(domainName);
  if (!domain || domain.customer !== customer) throw new ObjectDoesNotExist('Domain', domainName);
  if (!zone || zone.customer !== customer) throw new ObjectDoesNotExist('Zone', domainName);
  return renderZone(zone);
}

import { readDomainCollection } from '../db/repositories/transfers.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { DomainField, DomainSelection } from './domain-view.ts';
import { domainViewOf, domainZoneOf, selectFields } from './view.ts';

/**
 * One domain of the caller (`GET /v2/domains/{domainName}`), with `fields` only those fields: the
 * name's collection in one Query (the domain, its zone's header, a transfer running for it).
 * Another customer's domain answers like a missing one, after the same one Query.
 */
export async function getDomain(customer: string, domainName: string, fields?: readonly DomainField[]): Promise<DomainSelection> {
  const { domain, zone, lock } = await readDomainCollection(domainName);
  if (!domain || domain.customer !== customer) throw new ObjectDoesNotExist('Domain', domainName);
  const linked = zone && zone.customer === customer ? domainZoneOf(zone) : undefined;
  return selectFields(domainViewOf(domain, { ...(linked ? { zone: linked } : {}), pendingTransfer: lock !== undefined }), fields);
}

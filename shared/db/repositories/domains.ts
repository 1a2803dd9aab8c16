import { DomainRecord } from '../../model/domain.ts';
import { ZoneRecord } from '../../model/zone.ts';
import { getItem, getItemOf, listByGsi1, parseItem, putItem, queryPartition, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { zoneEntity } from './zones.ts';

const entity = 'domain';

/** The item a domain is stored as (for use inside a caller's transaction). */
export function domainItem(record: DomainRecord): Record<string, unknown> {
  return toItem(keys.domain(record.domainName, record.customer), entity, record);
}

export function putDomain(record: DomainRecord, ifAbsent = false): Promise<boolean> {
  return putItem(domainItem(record), ifAbsent);
}

/** A domain by name, whoever holds it (callers check the customer). */
export function getDomain(domainName: string): Promise<DomainRecord | undefined> {
  return getItem(keys.domainByName(domainName), DomainRecord, entity);
}

/** A domain of this customer; another customer's reads as absent (contract section 1). */
export function getDomainOf(customer: string, domainName: string): Promise<DomainRecord | undefined> {
  return getItemOf(customer, keys.domainByName(domainName), DomainRecord, entity);
}

export function listDomains(customer: string): Promise<DomainRecord[]> {
  return listByGsi1(keys.domainsOfCustomer(customer).gsi1pk, DomainRecord, entity);
}

/**
 * A domain name's item collection in one Query, as far as it is this customer's: the domain (if
 * the customer holds it) and its zone (if the customer's). Another customer's items are filtered
 * out by the table, so a name of another account and an unknown name read alike, in work too.
 */
export async function getDomainAndZoneOf(customer: string, domainName: string): Promise<{ domain?: DomainRecord; zone?: ZoneRecord }> {
  const items = await queryPartition(keys.domainCollection(domainName).pk, customer);
  const out: { domain?: DomainRecord; zone?: ZoneRecord } = {};
  for (const item of items) {
    if (item.entity === entity) out.domain = parseItem(DomainRecord, entity, item);
    else if (item.entity === zoneEntity) out.zone = parseItem(ZoneRecord, zoneEntity, item);
  }
  return out;
}

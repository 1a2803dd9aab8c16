import { DomainRecord } from '../../model/domain.ts';
import { getItem, getItemOf, listByGsi1, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

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

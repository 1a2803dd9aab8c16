import { DomainRecord } from '../../model/domain.ts';
import { ZoneRecord } from '../../model/zone.ts';
import { getItem, parseItem, putItem, queryAll, toItem } from '../items.ts';
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
export async function getDomainOf(customer: string, domainName: string): Promise<DomainRecord | undefined> {
  const domain = await getDomain(domainName);
  return domain?.customer === customer ? domain : undefined;
}

export async function listDomains(customer: string): Promise<DomainRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainsOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => parseItem(DomainRecord, entity, item));
}

/**
 * A domain name's item collection in one Query: the domain (if some account holds it) and its
 * zone (if the service has one). Callers check the customer of each.
 */
export async function getDomainAndZone(domainName: string): Promise<{ domain?: DomainRecord; zone?: ZoneRecord }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainCollection(domainName).pk },
  });
  const out: { domain?: DomainRecord; zone?: ZoneRecord } = {};
  for (const item of items) {
    if (item.entity === entity) out.domain = parseItem(DomainRecord, entity, item);
    else if (item.entity === zoneEntity) out.zone = parseItem(ZoneRecord, zoneEntity, item);
  }
  return out;
}

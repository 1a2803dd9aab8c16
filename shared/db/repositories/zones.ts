import { TemplateRecord, ZoneRecord } from '../../model/zone.ts';
import { getItem, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';

export const zoneEntity = 'zone';
const templateEntity = 'template';

/** The item a zone is stored as (for use inside a caller's transaction). */
export function zoneItem(record: ZoneRecord): Record<string, unknown> {
  return toItem(keys.zone(record.domainName, record.customer), zoneEntity, record);
}

export function putZone(record: ZoneRecord, ifAbsent = false): Promise<boolean> {
  return putItem(zoneItem(record), ifAbsent);
}

/** The zone of a domain name, whoever holds it (callers check the customer). One GetItem. */
export function getZone(domainName: string): Promise<ZoneRecord | undefined> {
  return getItem(keys.zoneByName(domainName), ZoneRecord, zoneEntity);
}

/** A zone of this customer; another customer's reads as absent (contract section 1). */
export async function getZoneOf(customer: string, domainName: string): Promise<ZoneRecord | undefined> {
  const zone = await getZone(domainName);
  return zone?.customer === customer ? zone : undefined;
}

export async function listZones(customer: string): Promise<ZoneRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.zonesOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => parseItem(ZoneRecord, zoneEntity, item));
}

export function putTemplate(record: TemplateRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.template(record.customer, record.name), templateEntity, record), ifAbsent);
}

/** A template of this customer (templates are per account). */
export function getTemplate(customer: string, name: string): Promise<TemplateRecord | undefined> {
  return getItem(keys.template(customer, name), TemplateRecord, templateEntity);
}

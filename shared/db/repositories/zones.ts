import { TemplateRecord, ZoneRecord, type ZoneRecordEntry } from '../../model/zone.ts';
import { batchGetAll, getItem, getItemOf, listByGsi1, parseItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { TransactItem } from '../transactions.ts';

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
export function getZoneOf(customer: string, domainName: string): Promise<ZoneRecord | undefined> {
  return getItemOf(customer, keys.zoneByName(domainName), ZoneRecord, zoneEntity);
}

/** The zones of these domain names that exist, whoever holds them (one BatchGet; callers check the customer). */
export async function getZonesByName(domainNames: readonly string[]): Promise<ZoneRecord[]> {
  const items = domainNames.length ? await batchGetAll(domainNames.map((name) => keys.zoneByName(name))) : [];
  return items.map((item) => parseItem(ZoneRecord, zoneEntity, item));
}

/** Appends records to a zone of this customer, for use inside a caller's transaction (the zone must still be theirs). */
export function appendZoneRecordsItem(domainName: string, customer: string, records: ZoneRecordEntry[], at: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(domainName),
      UpdateExpression: 'SET #records = list_append(#records, :records), updatedDate = :now',
      ConditionExpression: 'customer = :customer',
      ExpressionAttributeNames: { '#records': 'records' },
      ExpressionAttributeValues: { ':records': records, ':now': at, ':customer': customer },
    },
  };
}

export function listZones(customer: string): Promise<ZoneRecord[]> {
  return listByGsi1(keys.zonesOfCustomer(customer).gsi1pk, ZoneRecord, zoneEntity);
}

export function putTemplate(record: TemplateRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.template(record.customer, record.name), templateEntity, record), ifAbsent);
}

/** A template of this customer (templates are per account). */
export function getTemplate(customer: string, name: string): Promise<TemplateRecord | undefined> {
  return getItem(keys.template(customer, name), TemplateRecord, templateEntity);
}

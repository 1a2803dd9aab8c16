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

/** A record as a zone holds it, named exactly: the zone (domain name), its name, type and contents. */
export interface ZoneRecordRef {
  zone: string;
  name: string;
  type: string;
  content: string;
}

/**
 * Transaction items removing these records from the customer's zones (the DCV records a
 * certificate request added), for use inside the caller's transaction. A record the zone no longer
 * holds, or a zone that is no longer the customer's, is left alone. With records inline in the
 * zone item, the zones are read first (one BatchGet) and each record is removed at its position,
 * under the condition that the position still holds it: a concurrent change of the zone cancels
 * the transaction instead of removing another record.
 */
export async function removeZoneRecordsItems(customer: string, records: readonly ZoneRecordRef[], at: string): Promise<TransactItem[]> {
  const names = [...new Set(records.map((r) => r.zone))];
  const zones = (await getZonesByName(names)).filter((z) => z.customer === customer);
  return zones.flatMap((zone) => {
    const wanted = records.filter((r) => r.zone === zone.domainName);
    const positions = new Set<number>();
    for (const r of wanted) {
      const i = zone.records.findIndex((e, n) => !positions.has(n) && e.name === r.name && e.type === r.type && e.content === r.content);
      if (i >= 0) positions.add(i);
    }
    return positions.size > 0 ? [removeAtPositions(zone.domainName, customer, zone.records, [...positions], at)] : [];
  });
}

/** The update removing the records at these positions, each only while it still holds what was read there. */
function removeAtPositions(
  domainName: string,
  customer: string,
  records: ZoneRecordEntry[],
  positions: number[],
  at: string,
): TransactItem {
  const values: Record<string, unknown> = { ':customer': customer, ':now': at };
  const conditions = ['customer = :customer'];
  for (const i of positions) {
    const r = records[i] as ZoneRecordEntry;
    Object.assign(values, { [`:n${i}`]: r.name, [`:t${i}`]: r.type, [`:c${i}`]: r.content });
    conditions.push(`#records[${i}].#name = :n${i} AND #records[${i}].#type = :t${i} AND #records[${i}].content = :c${i}`);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(domainName),
      UpdateExpression: `REMOVE ${positions.map((i) => `#records[${i}]`).join(', ')} SET updatedDate = :now`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: { '#records': 'records', '#name': 'name', '#type': 'type' },
      ExpressionAttributeValues: values,
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

import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ProviderUnavailable } from '../../errors.ts';
import { DomainRecord } from '../../model/domain.ts';
import { TemplateRecord, ZoneHeader, ZoneRecord, ZoneRecordEntry } from '../../model/zone.ts';
import { ZoneDnsState } from '../../model/zone-dns.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, listByGsi1, parseItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';

/**
 * Reading zones. A zone is stored in its domain name's item collection (`DOMAIN#<name>`) as one
 * header item (`ZONE`: settings, SOA timers, the DCV records the service added) and one item per
 * record (`ZONE#<generation>#<position>`), so no zone is bounded by DynamoDB's 400 KB item size.
 *
 * The header names the generation its records belong to and how many there are. A writer puts a
 * new generation's records first, then switches the header to it, then deletes the old generation
 * (zone-writes.ts), so a reader that takes the header's generation sees the old zone or the new
 * one, never a mix. A read that overlapped a switch finds fewer records of its generation than the
 * header counts (the old ones were being deleted) and reads again; a read of several pages also
 * checks, at the end, that the header's revision is still the one it started with.
 *
 * A header written before records became items (records inline, no generation) still reads; `npm
 * run admin -- migrate` rewrites such zones in this layout.
 */

export const zoneEntity = 'zone';
export const zoneRecordEntity = 'zoneRecord';
const domainEntity = 'domain';
const templateEntity = 'template';
/** The entity of a zone's standing with the DNS provider (zone-dns.ts keeps it). */
const zoneDnsEntity = 'zoneDns';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** The header item as stored: the zone without records, its records' generation and count, and a revision every write raises. */
const StoredHeader = v.object({
  ...ZoneHeader.entries,
  generation: v.string(),
  recordCount: Count,
  revision: Count,
});

/** A zone's header as read, with where its records are. `inline`: an item of the old layout, records inside it. */
export interface ZoneHead {
  zone: ZoneHeader;
  generation?: string;
  recordCount: number;
  revision: number;
  inline?: ZoneRecordEntry[];
}

/** Parses a zone header item (either layout). */
export function parseZoneHead(item: Record<string, unknown>): ZoneHead {
  if (item.generation === undefined) {
    const legacy = parseItem(ZoneRecord, zoneEntity, item);
    const { records, ...zone } = legacy;
    return { zone, recordCount: records.length, revision: Number(item.revision ?? 0), inline: records };
  }
  const { generation, recordCount, revision, ...zone } = parseItem(StoredHeader, zoneEntity, item);
  return { zone, generation, recordCount, revision };
}

/**
 * The zone of a header with the records read alongside it (any items of its collection, in
 * sort-key order); undefined when they are not the header's generation whole (a read that
 * overlapped a write).
 */
export function assembleZone(head: ZoneHead, items: readonly Record<string, unknown>[]): ZoneRecord | undefined {
  if (head.inline) return { ...head.zone, records: head.inline };
  const prefix = keys.zoneRecords(head.zone.domainName, head.generation).skPrefix;
  const records: ZoneRecordEntry[] = [];
  for (const item of items) {
    if (typeof item.sk === 'string' && item.sk.startsWith(prefix)) records.push(parseItem(ZoneRecordEntry, zoneRecordEntity, item));
  }
  return records.length === head.recordCount ? { ...head.zone, records } : undefined;
}

/** How often a read that overlapped a zone write is repeated before the request is answered 503. */
const maxAttempts = 4;

function overlapped(domainName: string): Error {
  return new ProviderUnavailable(`The zone of ${domainName} is being rewritten; retry.`);
}

/** One page of a Query of a domain's collection (raw items, the key to go on from). */
async function collectionPage(
  domainName: string,
  start: Record<string, unknown> | undefined,
  consistent: boolean,
  options: { skPrefix?: string } = {},
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const { skPrefix } = options;
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: {
        ':pk': keys.domainCollection(domainName).pk,
        ...(skPrefix ? { ':prefix': skPrefix } : {}),
      },
      ExclusiveStartKey: start,
      ...(consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** The header's revision now (a strongly consistent GetItem), to tell whether a zone changed during a read of several pages. */
async function revisionNow(domainName: string): Promise<number | undefined> {
  const out = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.zoneByName(domainName), ConsistentRead: true, ProjectionExpression: 'revision' }),
  );
  return out.Item ? Number(out.Item.revision ?? 0) : undefined;
}

/** A domain name's collection as found on the first page: the domain (any account's) and the zone's header. */
export interface DomainAndZoneHeader {
  domain?: DomainRecord;
  zone?: ZoneHeader;
}

/**
 * A domain name's collection: the domain and its zone whole.
 *
 * With `customer`, ownership comes before cost: one Query of the name's own items (the domain, a
 * transfer in progress, the zone's header: every key below the records' `ZONE#`), which the
 * table filters to that customer's; only when the header is the caller's are the records of its
 * generation read (withRecords). Another customer's zone, however big, thus costs what a missing
 * one costs: one call that examines at most those three small items and answers nothing.
 *
 * Without `customer` (jobs and tools acting for no caller), one paged Query of the whole
 * collection: one call when it fits one page (1 MB; a zone of about 8,000 small records).
 */
export async function getDomainAndZone(
  domainName: string,
  customer?: string,
): Promise<{ domain?: DomainRecord; zone?: ZoneRecord; header?: ZoneHeader; revision?: number; dns?: ZoneDnsState }> {
  if (customer) return ownDomainAndZone(domainName, customer);
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const consistent = attempt > 0;
    const first = await collectionPage(domainName, undefined, consistent);
    const domainItem = first.items.find((item) => item.entity === domainEntity);
    const headItem = first.items.find((item) => item.entity === zoneEntity);
    const domain = domainItem ? parseItem(DomainRecord, domainEntity, domainItem) : undefined;
    const head = headItem ? parseZoneHead(headItem) : undefined;
    // Where the zone stands with the DNS provider (zone-dns.ts): `DNS` sorts first in the collection.
    const dnsItem = first.items.find((item) => item.entity === zoneDnsEntity);
    const found = {
      ...(domain ? { domain } : {}),
      ...(head ? { header: head.zone, revision: head.revision } : {}),
      ...(dnsItem ? { dns: parseItem(ZoneDnsState, zoneDnsEntity, dnsItem) } : {}),
    };
    // No header on the first page: no zone (of this customer); its records are not read.
    if (!head) return found;
    const items = first.items;
    let next = first.next;
    let pages = 1;
    for (; next; pages++) {
      const page = await collectionPage(domainName, next, consistent);
      items.push(...page.items);
      next = page.next;
    }
    const zone = assembleZone(head, items);
    if (zone && (pages === 1 || (await revisionNow(domainName)) === head.revision)) return { ...found, zone };
  }
  throw overlapped(domainName);
}

/** The caller's domain and zone: the name's own items filtered to the caller, then the records of a header that is theirs. */
async function ownDomainAndZone(
  domainName: string,
  customer: string,
): Promise<{ domain?: DomainRecord; zone?: ZoneRecord; header?: ZoneHeader; revision?: number; dns?: ZoneDnsState }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk < :records',
      FilterExpression: 'customer = :customer',
      ExpressionAttributeValues: {
        ':pk': keys.domainCollection(domainName).pk,
        ':records': keys.zoneRecords(domainName).skPrefix,
        ':customer': customer,
      },
    }),
  );
  const items = out.Items ?? [];
  const domainItem = items.find((item) => item.entity === domainEntity);
  const headItem = items.find((item) => item.entity === zoneEntity);
  const domain = domainItem ? parseItem(DomainRecord, domainEntity, domainItem) : undefined;
  const head = headItem ? parseZoneHead(headItem) : undefined;
  // Where the zone stands with the DNS provider (zone-dns.ts): `DNS` sorts before the records.
  const dnsItem = items.find((item) => item.entity === zoneDnsEntity);
  const found = {
    ...(domain ? { domain } : {}),
    ...(head ? { header: head.zone, revision: head.revision } : {}),
    ...(dnsItem ? { dns: parseItem(ZoneDnsState, zoneDnsEntity, dnsItem) } : {}),
  };
  if (!head) return found;
  const zone = await withRecords(head);
  // Re-read after an overlapping write: still the caller's zone, or none of theirs.
  return zone.customer === customer ? { ...found, zone } : { ...(domain ? { domain } : {}) };
}

/** The zone of a domain name, whoever holds it (callers check the customer), with its records. */
export async function getZone(domainName: string): Promise<ZoneRecord | undefined> {
  return (await getDomainAndZone(domainName)).zone;
}

/** The zone of a domain name without its records, or undefined: one GetItem. */
export async function getZoneHead(domainName: string, consistent = false): Promise<ZoneHead | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.zoneByName(domainName), ConsistentRead: consistent }));
  return out.Item ? parseZoneHead(out.Item) : undefined;
}

/**
 * The records of a zone whose header was read already (a BatchGet of several headers): one
 * paged Query of its generation. A read that overlapped a write reads header and records again.
 */
export async function withRecords(head: ZoneHead): Promise<ZoneRecord> {
  const domainName = head.zone.domainName;
  let current: ZoneHead | undefined = head;
  for (let attempt = 0; attempt < maxAttempts && current; attempt++) {
    if (current.inline) return { ...current.zone, records: current.inline };
    const items: Record<string, unknown>[] = [];
    let next: Record<string, unknown> | undefined;
    do {
      const page = await collectionPage(domainName, next, attempt > 0, {
        skPrefix: keys.zoneRecords(domainName, current.generation).skPrefix,
      });
      items.push(...page.items);
      next = page.next;
    } while (next);
    const zone = assembleZone(current, items);
    if (zone) return zone;
    current = await getZoneHead(domainName, true);
  }
  if (!current) throw new Error(`The zone of ${domainName} was deleted while it was read`);
  throw overlapped(domainName);
}

/** The zone headers of these domain names that exist, whoever holds them (one BatchGet; callers check the customer). */
export async function getZoneHeadsByName(domainNames: readonly string[]): Promise<ZoneHead[]> {
  const items = domainNames.length ? await batchGetAll(domainNames.map((name) => keys.zoneByName(name))) : [];
  return items.map(parseZoneHead);
}

/** The zones of a customer, without their records (gsi1 lists the headers). */
export async function listZones(customer: string): Promise<ZoneHeader[]> {
  return (await listByGsi1(keys.zonesOfCustomer(customer).gsi1pk, v.looseObject({ entity: v.string() }), zoneEntity)).map(
    (item) => parseZoneHead(item).zone,
  );
}

/** A template of this customer (templates are per account). */
export function getTemplate(customer: string, name: string): Promise<TemplateRecord | undefined> {
  return getItem(keys.template(customer, name), TemplateRecord, templateEntity);
}

/**
 * The caller's zone by its numeric id (`/v2/dns/zones/{id}`): the header found on gsi2 by the id
 * (keys.zoneById), filtered to the caller's in the table, so another customer's zone and a missing
 * id are the same call with the same empty answer; then read again by name, strongly consistent
 * (the index lags the table a little): undefined when it is no longer there or no longer the caller's.
 */
export async function getZoneHeadById(customer: string, id: number): Promise<ZoneHead | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: 'customer = :customer AND entity = :entity',
      ExpressionAttributeValues: { ':pk': keys.zoneById(id).gsi2pk, ':customer': customer, ':entity': zoneEntity },
    }),
  );
  const found = (out.Items ?? []).map(parseZoneHead).find((head) => head.zone.id === id);
  if (!found) return undefined;
  const head = await getZoneHead(found.zone.domainName, true);
  return head && head.zone.customer === customer && head.zone.id === id ? head : undefined;
}

/** The caller's zone of a domain name without its records (one strongly consistent GetItem): undefined when none is theirs. */
export async function getOwnZoneHead(customer: string, domainName: string): Promise<ZoneHead | undefined> {
  const head = await getZoneHead(domainName, true);
  return head?.zone.customer === customer ? head : undefined;
}

/** One page of a customer's zone headers in name order (gsi1 `ZONES#<customer>`), at most `limit`. */
export async function readZoneHeadPage(
  customer: string,
  options: { limit: number; ascending: boolean; start?: Record<string, unknown> },
): Promise<{ heads: ZoneHead[]; read: number; next?: Record<string, unknown> }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.zonesOfCustomer(customer).gsi1pk },
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  return { heads: items.map(parseZoneHead), read: items.length, ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/**
 * Counts a customer's zones in name order over keys only (gsi1keys, Select COUNT), stopping at
 * `upTo`: how many, and where the page after them starts (undefined when none is left).
 */
export async function countZonesAlong(
  customer: string,
  upTo: number,
  ascending: boolean,
): Promise<{ counted: number; next: Record<string, unknown> | undefined }> {
  let counted = 0;
  let next: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1keys',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.zonesOfCustomer(customer).gsi1pk },
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: Math.max(1, upTo - counted),
        ...(next ? { ExclusiveStartKey: next } : {}),
      }),
    );
    counted += out.Count ?? 0;
    next = out.LastEvaluatedKey;
  } while (counted < upTo && next);
  return { counted, next };
}

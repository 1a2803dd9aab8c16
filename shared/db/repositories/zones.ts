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
/** A generation of records no header names any more, whose items are still being deleted (zone-writes.ts, sweepRetired). */
const RetiredGeneration = v.object({ generation: v.string(), recordCount: Count });
export type RetiredGeneration = v.InferOutput<typeof RetiredGeneration>;

const StoredHeader = v.object({
  ...ZoneHeader.entries,
  generation: v.string(),
  recordCount: Count,
  revision: Count,
  retired: v.optional(v.array(RetiredGeneration)),
});

/** A zone's header as read, with where its records are. `inline`: an item of the old layout, records inside it. */
export interface ZoneHead {
  zone: ZoneHeader;
  generation?: string;
  recordCount: number;
  revision: number;
  inline?: ZoneRecordEntry[];
  /** Generations the header no longer names whose record items are not all deleted yet. */
  retired?: RetiredGeneration[];
}

/** Parses a zone header item (either layout). */
export function parseZoneHead(item: Record<string, unknown>): ZoneHead {
  if (item.generation === undefined) {
    const legacy = parseItem(ZoneRecord, zoneEntity, item);
    const { records, ...zone } = legacy;
    return { zone, recordCount: records.length, revision: Number(item.revision ?? 0), inline: records };
  }
  const { generation, recordCount, revision, retired, ...zone } = parseItem(StoredHeader, zoneEntity, item);
  return { zone, generation, recordCount, revision, ...(retired && retired.length > 0 ? { retired } : {}) };
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
 * With `customer`, ownership comes before cost: one Query of that customer's partition of the name
 * in gsi3 (ownDomainAndZone), which holds only their items. Another customer's zone, however big,
 * thus costs what a missing one costs.
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
    const head = first.items.find((item) => item.entity === zoneEntity);
    const found = foundIn(first.items);
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
    const parsed = parseZoneHead(head);
    const zone = assembleZone(parsed, items);
    if (zone && (pages === 1 || (await revisionNow(domainName)) === parsed.revision)) return { ...found, zone };
  }
  throw overlapped(domainName);
}

/** The domain, the zone's header and the DNS standing among items of a domain name's collection (`DNS` sorts first). */
function foundIn(items: readonly Record<string, unknown>[]): {
  domain?: DomainRecord;
  header?: ZoneHeader;
  revision?: number;
  dns?: ZoneDnsState;
} {
  const domainItem = items.find((item) => item.entity === domainEntity);
  const headItem = items.find((item) => item.entity === zoneEntity);
  const dnsItem = items.find((item) => item.entity === zoneDnsEntity);
  const head = headItem ? parseZoneHead(headItem) : undefined;
  return {
    ...(domainItem ? { domain: parseItem(DomainRecord, domainEntity, domainItem) } : {}),
    ...(head ? { header: head.zone, revision: head.revision } : {}),
    ...(dnsItem ? { dns: parseItem(ZoneDnsState, zoneDnsEntity, dnsItem) } : {}),
  };
}

/** One page of the caller's items of a domain name's collection (gsi3: domain, DNS standing, zone header, records). */
async function ownCollectionPage(
  domainName: string,
  customer: string,
  start: Record<string, unknown> | undefined,
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.ownDomainCollection(domainName, customer).gsi3pk },
      ExclusiveStartKey: start,
    }),
  );
  return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/**
 * The caller's domain and zone: one paged Query of the caller's partition of the name in gsi3 (one
 * call when it fits a page of 1 MB, about 8,000 small records). Another customer's items of the
 * name are in another partition: their zone, however big, is never read.
 *
 * The index is eventually consistent, like the table's default read, and items written before it
 * (until `npm run admin -- migrate` places them) are not in it. So when the partition holds no
 * whole zone of the caller's (no header, or not every record of its generation: a read that
 * overlapped a write, the index lagging, or items not yet placed), the answer comes from the table
 * (ownFromTable): a 404 costs two small reads, the same for a missing name and another customer's.
 */
async function ownDomainAndZone(
  domainName: string,
  customer: string,
): Promise<{ domain?: DomainRecord; zone?: ZoneRecord; header?: ZoneHeader; revision?: number; dns?: ZoneDnsState }> {
  const first = await ownCollectionPage(domainName, customer, undefined);
  const items = first.items;
  const headItem = items.find((item) => item.entity === zoneEntity);
  if (!headItem || headItem.customer !== customer) return ownFromTable(domainName, customer);
  let pages = 1;
  for (let next = first.next; next; pages++) {
    const page = await ownCollectionPage(domainName, customer, next);
    items.push(...page.items);
    next = page.next;
  }
  const head = parseZoneHead(headItem);
  const zone = assembleZone(head, items);
  // A read of several pages checks that the header is still the one it started with (a write
  // between its pages switches it): else the table's read, which reads again after an overlap.
  const unchanged = pages === 1 || (await ownHeaderRevision(domainName, customer)) === head.revision;
  return zone && unchanged ? { ...foundIn(items), zone } : ownFromTable(domainName, customer);
}

/** The revision of the caller's zone header as its partition of the name holds it now (one Query of one item). */
async function ownHeaderRevision(domainName: string, customer: string): Promise<number | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk AND sk = :zone',
      ExpressionAttributeValues: { ':pk': keys.ownDomainCollection(domainName, customer).gsi3pk, ':zone': keys.zoneByName(domainName).sk },
      ProjectionExpression: 'revision',
    }),
  );
  const item = out.Items?.[0];
  return item ? Number(item.revision ?? 0) : undefined;
}

/**
 * The caller's domain and zone from the table: the name's own items (every key below the records'
 * `ZONE#`) filtered to the caller, then the records of a header that is theirs (withRecords, which
 * reads again strongly consistent after an overlapping write).
 */
export async function ownFromTable(
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
  const found = foundIn(items);
  const headItem = items.find((item) => item.entity === zoneEntity);
  if (!headItem) return found;
  const zone = await withRecords(parseZoneHead(headItem));
  // Re-read after an overlapping write: still the caller's zone, or none of theirs.
  return zone.customer === customer ? { ...found, zone } : foundIn(items.filter((item) => item.entity === domainEntity));
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
 * The caller's zone header by its numeric id (the zone API's writes): its entry in the caller's
 * partition of the id on gsi2 (keys.zoneById: another customer's zone of that id is another
 * partition, so it answers like a missing id, at the same cost), or, for a header not yet moved
 * there by `npm run admin -- migrate`, its entry of before (`ZONEID#<id>`, filtered to the
 * caller's in the table); then read again by name, strongly consistent (the index lags the table
 * a little): undefined when it is no longer there or no longer the caller's.
 */
export async function getZoneHeadById(customer: string, id: number): Promise<ZoneHead | undefined> {
  const own = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk = :sk',
      ExpressionAttributeValues: { ':pk': keys.zoneById(id, customer).gsi2pk, ':sk': keys.zoneById(id, customer).gsi2sk },
    }),
  );
  const found = (own.Items ?? []).map(parseZoneHead).find((head) => head.zone.id === id) ?? (await headByIdBeforeOwner(customer, id));
  if (!found) return undefined;
  const head = await getZoneHead(found.zone.domainName, true);
  return head && head.zone.customer === customer && head.zone.id === id ? head : undefined;
}

/** A zone header by its id entry of before it named the owner (`ZONEID#<id>`), filtered to the caller's in the table. */
async function headByIdBeforeOwner(customer: string, id: number): Promise<ZoneHead | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      FilterExpression: 'customer = :customer AND entity = :entity',
      ExpressionAttributeValues: { ':pk': keys.zoneByIdBeforeOwner(id).gsi2pk, ':customer': customer, ':entity': zoneEntity },
    }),
  );
  return (out.Items ?? []).map(parseZoneHead).find((head) => head.zone.id === id);
}

/**
 * The caller's zone by its id, whole, for `GET /v2/dns/zones/{id}`: one paged Query of the caller's
 * partition of the id in gsi2 (header, records, DNS standing; one call when it fits a page of
 * 1 MB). Another customer's zone of that id is another partition, never read. When the partition
 * holds no whole zone (none of the caller's, a read that overlapped a write or a lagging index,
 * items not yet moved there by the migration), the answer comes from the table: the header by id
 * (getZoneHeadById), its records and its DNS standing, so a 404 costs the same for a missing id
 * and another customer's zone.
 */
export async function getOwnZoneById(
  customer: string,
  id: number,
): Promise<{ zone: ZoneRecord; revision: number; dns?: ZoneDnsState } | undefined> {
  const items: Record<string, unknown>[] = [];
  let next: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    pages++;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.ownZoneById(id, customer).gsi2pk },
        ExclusiveStartKey: next,
      }),
    );
    items.push(...(out.Items ?? []));
    next = out.LastEvaluatedKey;
    // No header of the caller's on the first page (it sorts before the records): no more pages.
    if (!items.some((item) => item.entity === zoneEntity)) break;
  } while (next);
  const headItem = items.find((item) => item.entity === zoneEntity);
  const head = headItem ? parseZoneHead(headItem) : undefined;
  const zone = head && head.zone.customer === customer && head.zone.id === id ? assembleZone(head, items) : undefined;
  // A read of several pages checks that the header is still the one it started with (else the table's read).
  if (head && zone && pages > 1) {
    const now = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk = :zone',
        ExpressionAttributeValues: { ':pk': keys.zoneById(id, customer).gsi2pk, ':zone': keys.zoneById(id, customer).gsi2sk },
        ProjectionExpression: 'revision',
      }),
    );
    if (Number(now.Items?.[0]?.revision ?? -1) !== head.revision) return undefined;
  }
  if (head && zone) {
    const dnsItem = items.find((item) => item.entity === zoneDnsEntity);
    return { zone, revision: head.revision, ...(dnsItem ? { dns: parseItem(ZoneDnsState, zoneDnsEntity, dnsItem) } : {}) };
  }
  return undefined;
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

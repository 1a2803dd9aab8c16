import { GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type DomainInput, DomainRecord } from '../../model/domain.ts';
import { dueOf } from '../../model/domain-lifecycle.ts';
import type { NotificationRecord } from '../../model/notification.ts';
import type { ProcessRecord } from '../../model/process.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, getItemOf, listByGsi1, pageGsi1Range, parseItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, putNew, type TransactItem, transact } from '../transactions.ts';
import { type Commitment, itemsOf } from './commit-with.ts';
import { notificationWrites } from './notifications.ts';
import { newProcessItems, processItem } from './processes.ts';
import { type DomainZoneWrite, domainZoneWrite } from './zone-writes.ts';

const entity = 'domain';
const statusEntity = 'domainStatus';

/** The record as stored: statuses in the API's spelling, the defaults of later fields written out. */
function normalised(record: DomainInput): DomainRecord {
  return v.parse(DomainRecord, record);
}

/**
 * The item a domain is stored as (for use inside a caller's transaction, with statusItems): listed
 * by name (gsi1) and by expiry (gsi2).
 */
export function domainItem(input: DomainInput): Record<string, unknown> {
  const record = normalised(input);
  return toItem(keys.domain(record.domainName, record.customer, record.expiryDate), entity, record);
}

/** The count attribute of a status (`status_OK`), or of every domain (`all`). */
const countName = (status?: string) => (status === undefined ? 'all' : `status_${status}`);

/** The change of a customer's kept counts by these deltas (an ADD), or undefined when nothing changes. */
function countsChange(customer: string, deltas: Map<string, number>): TransactItem | undefined {
  const changed = [...deltas].filter(([, d]) => d !== 0);
  if (changed.length === 0) return undefined;
  const names = Object.fromEntries(changed.map(([name], i) => [`#c${i}`, name]));
  const values = Object.fromEntries(changed.map(([, d], i) => [`:c${i}`, d]));
  return {
    Update: {
      TableName: tableName(),
      Key: keys.domainCounts(customer),
      UpdateExpression: `ADD ${changed.map((_, i) => `#c${i} :c${i}`).join(', ')} SET entity = :entity`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':entity': 'domainCounts' },
    },
  };
}

/** A customer's kept domain counts: every domain (`all`) and per status; 0 for what was never counted. */
export async function readDomainCounts(customer: string): Promise<(status?: string) => number> {
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.domainCounts(customer) }))).Item ?? {};
  return (status) => {
    const value = item[countName(status)];
    return typeof value === 'number' ? value : 0;
  };
}

/**
 * The writes that keep a domain's status listing (keys.domainStatus) and its customer's kept
 * counts in step with a write of the domain, for the same transaction: a put for each status it
 * has, a delete for each one it had (`before`: the domain as stored before, absent for a new one)
 * and no longer has, and the counts moved from what it counted as before.
 */
export function statusItems(after: DomainInput, before?: DomainInput): TransactItem[] {
  const now = normalised(after);
  const was = before ? normalised(before) : undefined;
  const counted = (d: DomainRecord | undefined, sign: number, into: Map<string, Map<string, number>>) => {
    if (!d) return;
    const deltas = into.get(d.customer) ?? new Map<string, number>();
    for (const name of [countName(), ...d.status.map(countName)]) deltas.set(name, (deltas.get(name) ?? 0) + sign);
    into.set(d.customer, deltas);
  };
  const deltas = new Map<string, Map<string, number>>();
  counted(was, -1, deltas);
  counted(now, 1, deltas);
  const counts = [...deltas].flatMap(([customer, d]) => {
    const change = countsChange(customer, d);
    return change ? [change] : [];
  });
  const puts = now.status
    .filter((s) => !was?.status.includes(s) || was.customer !== now.customer)
    .map(
      (s): TransactItem => ({
        Put: {
          TableName: tableName(),
          Item: toItem(keys.domainStatus(now.customer, s, now.domainName), statusEntity, { domainName: now.domainName }),
        },
      }),
    );
  const deletes = (was?.status ?? [])
    .filter((s) => !now.status.includes(s) || was?.customer !== now.customer)
    .map(
      (s): TransactItem => ({
        Delete: { TableName: tableName(), Key: keys.domainStatus(was?.customer ?? now.customer, s, now.domainName) },
      }),
    );
  return [...puts, ...deletes, ...counts, ...expiryDayItems(now, was), ...dueItems(now, was)];
}

/**
 * The counts of a customer's domains per expiry day (keys.domainExpiryDay), which the `total` of an
 * expiry range sums instead of counting its index entries: every write of a domain moves them in
 * its transaction (statusItems; a purge in purgeDomain), by the day of its expiry (UTC) and a shard
 * chosen by its name (so a burst of writes of one day spreads over a few items). Rebuilt from the
 * expiry index by repairExpiryDayCounts (`npm run admin -- migrate`).
 */
export const expiryDayShards = 4;
export const expiryDaysEntity = 'domainExpiryDays';

/** The day (UTC) a domain expires on, as the counters and the expiry index's keys start with it. */
const dayOf = (expiryDate: string) => expiryDate.slice(0, 10);

/** A domain name's counter shard: a small stable hash of the name. */
function shardOf(domainName: string): number {
  let h = 0;
  for (let i = 0; i < domainName.length; i++) h = (h * 31 + domainName.charCodeAt(i)) >>> 0;
  return h % expiryDayShards;
}

/** The sort key of the day counter a domain counts under (`<day>#<shard>`). */
export function expiryDayCounterOf(d: { domainName: string; expiryDate: string }): string {
  return `${dayOf(d.expiryDate)}#${shardOf(d.domainName)}`;
}

/** The change of one day counter by `delta` (an ADD: a counter written first by a decrement reads below zero until repaired). */
function expiryDayChange(customer: string, day: string, shard: number, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.domainExpiryDay(customer, day, shard),
      UpdateExpression: 'ADD #n :delta, #v :one SET #e = :entity',
      ExpressionAttributeNames: { '#n': 'count', '#v': 'version', '#e': 'entity' },
      ExpressionAttributeValues: { ':delta': delta, ':one': 1, ':entity': expiryDaysEntity },
    },
  };
}

/** The day counters a write of a domain moves: its day before (-1) and after (+1), when they differ. */
function expiryDayItems(now: DomainRecord | undefined, was: DomainRecord | undefined): TransactItem[] {
  const deltas = new Map<string, { customer: string; day: string; shard: number; delta: number }>();
  const add = (d: DomainRecord | undefined, delta: number) => {
    if (!d) return;
    const at = { customer: d.customer, day: dayOf(d.expiryDate), shard: shardOf(d.domainName) };
    const key = `${at.customer}\n${at.day}\n${at.shard}`;
    deltas.set(key, { ...at, delta: (deltas.get(key)?.delta ?? 0) + delta });
  };
  add(was, -1);
  add(now, 1);
  return [...deltas.values()].filter((c) => c.delta !== 0).map((c) => expiryDayChange(c.customer, c.day, c.shard, c.delta));
}

/** A day counter as read: its day, shard, count and version. */
interface ExpiryDayCounter {
  day: string;
  shard: number;
  count: number;
  version: number;
}

/** A customer's day counters with sort keys (`<day>#<shard>`) from `lower` to `upper` (inclusive, either open): one Query a page. */
async function readExpiryDayCounters(customer: string, lower?: string, upper?: string, consistent = false): Promise<ExpiryDayCounter[]> {
  const range =
    lower !== undefined && upper !== undefined
      ? { condition: ' AND sk BETWEEN :from AND :to', values: { ':from': lower, ':to': upper } }
      : lower !== undefined
        ? { condition: ' AND sk >= :from', values: { ':from': lower } }
        : upper !== undefined
          ? { condition: ' AND sk <= :to', values: { ':to': upper } }
          : { condition: '', values: {} };
  const items = await queryAll({
    KeyConditionExpression: `pk = :pk${range.condition}`,
    ExpressionAttributeValues: { ':pk': keys.domainExpiryDays(customer).pk, ...range.values },
    ProjectionExpression: 'sk, #n, #v',
    ExpressionAttributeNames: { '#n': 'count', '#v': 'version' },
    ...(consistent ? { ConsistentRead: true } : {}),
  });
  return items.map((item) => {
    const [day, shard] = String(item.sk).split('#');
    return { day: day as string, shard: Number(shard), count: Number(item.count ?? 0), version: Number(item.version ?? 0) };
  });
}

/**
 * How many of a customer's domains expire on the days whose counters' sort keys lie from `lower`
 * to `upper` (inclusive, either open; list-domains.ts, expiryDays): a sum of day counters.
 */
export async function countExpiringOnDays(customer: string, lower?: string, upper?: string): Promise<{ count: number; read: number }> {
  const counters = await readExpiryDayCounters(customer, lower, upper);
  const byDay = new Map<string, number>();
  for (const c of counters) byDay.set(c.day, (byDay.get(c.day) ?? 0) + c.count);
  // A day below zero (a decrement counted before its increment was repaired) counts none.
  return { count: [...byDay.values()].reduce((n, c) => n + Math.max(0, c), 0), read: counters.length };
}

/**
 * Rebuilds a customer's day counters from its expiry index (gsi2keys: keys only, about 10,000 a
 * call): each counter that differs is replaced if no write moved it since it was read (its
 * version), and the customer is counted again when one did. Answers how many counters it wrote.
 */
export async function repairExpiryDayCounts(customer: string): Promise<number> {
  let written = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const counters = await readExpiryDayCounters(customer, undefined, undefined, true);
    const counted = new Map<string, number>();
    let start: DomainCursor | undefined;
    do {
      const out = await db().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2keys',
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.domainsByExpiry(customer).gsi2pk },
          ProjectionExpression: 'gsi2sk',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        const sortKey = String(item.gsi2sk);
        const at = expiryDayCounterOf({ expiryDate: sortKey, domainName: sortKey.slice(sortKey.indexOf('#') + 1) });
        counted.set(at, (counted.get(at) ?? 0) + 1);
      }
      start = out.LastEvaluatedKey;
    } while (start);
    const held = new Map(counters.map((c) => [`${c.day}#${c.shard}`, c]));
    const changes = [...new Set([...counted.keys(), ...held.keys()])].filter((at) => (counted.get(at) ?? 0) !== (held.get(at)?.count ?? 0));
    let raced = false;
    await Promise.all(
      changes.map(async (at) => {
        const version = held.get(at)?.version ?? 0;
        const [day, shard] = at.split('#');
        try {
          await db().send(
            new PutCommand({
              TableName: tableName(),
              Item: {
                ...keys.domainExpiryDay(customer, day as string, Number(shard)),
                entity: expiryDaysEntity,
                count: counted.get(at) ?? 0,
                version: version + 1,
              },
              ConditionExpression: version === 0 ? 'attribute_not_exists(version) OR version = :v' : 'version = :v',
              ExpressionAttributeValues: { ':v': version },
            }),
          );
          written++;
        } catch (error) {
          if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
          raced = true;
        }
      }),
    );
    if (!raced) return written;
  }
  throw new Error(`The expiry day counts of ${customer} kept changing while they were repaired`);
}

const dueEntity = 'domainDue';
const DueListing = v.object({ domainName: v.string(), dueDate: v.string() });

/**
 * The domain's entry in the expiry job's listing (keys.domainDue), put when the domain is new or
 * its due time moved: one item in the domain's collection, so a put replaces the one before.
 */
function dueItems(now: DomainRecord, was: DomainRecord | undefined): TransactItem[] {
  if (was && dueOf(was) === dueOf(now)) return [];
  return [duePut(now)];
}

function duePut(d: DomainRecord): TransactItem {
  const dueDate = dueOf(d);
  return {
    Put: { TableName: tableName(), Item: toItem(keys.domainDue(d.domainName, dueDate), dueEntity, { domainName: d.domainName, dueDate }) },
  };
}

/**
 * The domains due at or before `at` (any customer), earliest first: one gsi1 Query page of at most
 * `limit` entries of the expiry job's listing, from `start` (the page before's `next`).
 */
export async function listDueDomains(
  at: string,
  limit: number,
  start?: DomainCursor,
): Promise<{ due: { domainName: string; dueDate: string }[]; next?: DomainCursor }> {
  const { items, next } = await pageGsi1Range(keys.domainsDue(at), limit, DueListing, dueEntity, start);
  return { due: items, ...(next ? { next } : {}) };
}

/**
 * Removes a domain whose redemption period is over (read as `before`, its `updatedDate` the guard):
 * the domain, its status listing, counts and due entry go, with the process and notification that
 * report it, in one transaction. False when it changed meanwhile (nothing written).
 */
export async function purgeDomain(before: DomainRecord, process: ProcessRecord, notification: NotificationRecord): Promise<boolean> {
  const counts = countsChange(before.customer, new Map([countName(), ...before.status.map(countName)].map((n) => [n, -1])));
  try {
    await transact([
      {
        Delete: {
          TableName: tableName(),
          Key: keys.domainByName(before.domainName),
          ConditionExpression: 'updatedDate = :was AND customer = :customer',
          ExpressionAttributeValues: { ':was': before.updatedDate, ':customer': before.customer },
        },
      },
      { Delete: { TableName: tableName(), Key: keys.domainDueByName(before.domainName) } },
      ...before.status.map(
        (s): TransactItem => ({ Delete: { TableName: tableName(), Key: keys.domainStatus(before.customer, s, before.domainName) } }),
      ),
      ...(counts ? [counts] : []),
      ...expiryDayItems(undefined, before),
      putNew(processItem(process)),
      ...newProcessItems(process),
      ...notificationWrites(notification),
    ]);
    return true;
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if ((error as Error).name === 'TransactionCanceledException' && reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** Stores a domain with its status listing in one transaction; `ifAbsent`: false when the name is already held (nothing written). */
export async function putDomain(record: DomainInput, ifAbsent = false): Promise<boolean> {
  const item = domainItem(record);
  const before = ifAbsent ? undefined : await getDomain(record.domainName);
  try {
    const along = statusItems(record, before);
    // Its due entry always (a domain stored before the expiry job kept one gets it now).
    const due = duePut(normalised(record));
    if (!along.some((i) => i.Put?.Item?.sk === 'DUE')) along.push(due);
    await transact([ifAbsent ? putNew(item) : { Put: { TableName: tableName(), Item: item } }, ...along]);
    return true;
  } catch (error) {
    if (ifAbsent && (error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}

/**
 * Replaces a domain as read (`before`, its `updatedDate` the guard) with `after`, with its status
 * listing and the caller's items (a process, a notification, an Idempotency-Key's answer) in one
 * transaction: false when the domain changed meanwhile (nothing written).
 */
export async function replaceDomain(
  before: DomainRecord,
  after: DomainRecord,
  along: TransactItem[] = [],
  /** Items whose condition failing also means "changed meanwhile" (false, nothing written): placed right after the domain. */
  guarded: TransactItem[] = [],
): Promise<boolean> {
  try {
    await transact([
      {
        Put: {
          TableName: tableName(),
          Item: domainItem(after),
          ConditionExpression: 'updatedDate = :was AND customer = :customer',
          ExpressionAttributeValues: { ':was': before.updatedDate, ':customer': before.customer },
        },
      },
      ...guarded,
      ...statusItems(after, before),
      ...along,
    ]);
    return true;
  } catch (error) {
    if (
      cancellationCodes(error)
        ?.slice(0, 1 + guarded.length)
        .includes('ConditionalCheckFailed')
    )
      return false;
    throw error;
  }
}

/** A domain by name, whoever holds it (callers check the customer). */
export function getDomain(domainName: string): Promise<DomainRecord | undefined> {
  return getItem(keys.domainByName(domainName), DomainRecord, entity);
}

/**
 * Records an update of a domain in one transaction: the domain as changed (guarded by the
 * `updatedDate` it was read with), the zone part of the update (right after it, guarded by the
 * zone as read: zone-writes.ts, domainZoneWrite), its status listing, the update's process (with
 * its identifier listing and counts), its notification, and what the caller commits with it (an
 * Idempotency-Key's answer). False when the domain or its zone changed meanwhile: nothing was
 * written.
 */
export async function recordDomainUpdate(
  before: DomainRecord,
  after: DomainRecord,
  process: ProcessRecord,
  notification: NotificationRecord,
  commitment?: Commitment,
  /** The domain's zone as the update changes it (a new, converted, re-linked or removed managed zone, or its name servers). */
  zone?: DomainZoneWrite,
): Promise<boolean> {
  const along = zone ? domainZoneWrite(zone) : undefined;
  await along?.stage();
  const at = after.updatedDate ?? after.createdDate;
  try {
    const written = await replaceDomain(
      before,
      after,
      [
        putNew(processItem(process)),
        ...newProcessItems(process),
        ...notificationWrites(notification),
        ...itemsOf(commitment),
        ...(along?.alongItems() ?? []),
      ],
      along ? [along.item(at)] : [],
    );
    if (!written) await along?.failed(undefined);
    else await along?.committed();
    return written;
  } catch (error) {
    await along?.failed(error);
    throw error;
  }
}

/** A domain of this customer; another customer's reads as absent (contract section 1). */
export function getDomainOf(customer: string, domainName: string): Promise<DomainRecord | undefined> {
  return getItemOf(customer, keys.domainByName(domainName), DomainRecord, entity);
}

export function listDomains(customer: string): Promise<DomainRecord[]> {
  return listByGsi1(keys.domainsOfCustomer(customer).gsi1pk, DomainRecord, entity);
}

/**
 * The index partition a domain listing reads: every domain of the customer by name (gsi1), by
 * expiry within an optional range (gsi2; `from` and `to` are inclusive bounds on the stored keys
 * `<expiryDate>#<name>`), or those with one status, by name (the status listing).
 */
export type DomainSource = { index: 'name' } | { index: 'expiry'; from?: string; to?: string } | { index: 'status'; status: string };

export type DomainCursor = Record<string, unknown>;

/** The partition (and for an expiry range, the key range) of a source; `keysOnly` names the keys-only twin to count and skip over. */
function partitionOf(customer: string, source: DomainSource, keysOnly = false): Omit<QueryCommandInput, 'TableName'> {
  if (source.index === 'name') {
    return {
      ...(keysOnly ? { IndexName: 'gsi1keys' } : { IndexName: 'gsi1' }),
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.domainsOfCustomer(customer).gsi1pk },
    };
  }
  if (source.index === 'status') {
    return { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.domainsWithStatus(customer, source.status).pk } };
  }
  const { from, to } = source;
  const range =
    from !== undefined && to !== undefined
      ? { condition: ' AND gsi2sk BETWEEN :from AND :to', values: { ':from': from, ':to': to } }
      : from !== undefined
        ? { condition: ' AND gsi2sk >= :from', values: { ':from': from } }
        : to !== undefined
          ? { condition: ' AND gsi2sk <= :to', values: { ':to': to } }
          : { condition: '', values: {} };
  return {
    IndexName: keysOnly ? 'gsi2keys' : 'gsi2',
    KeyConditionExpression: `gsi2pk = :pk${range.condition}`,
    ExpressionAttributeValues: { ':pk': keys.domainsByExpiry(customer).gsi2pk, ...range.values },
  };
}

const StatusListing = v.object({ domainName: v.string() });

/** Domains of the customer by name, whole, in the order asked (BatchGet): another customer's, or one gone meanwhile, left out. */
export async function readDomainsByName(customer: string, names: readonly string[]): Promise<DomainRecord[]> {
  const found = names.length > 0 ? await batchGetAll(names.map((name) => keys.domainByName(name))) : [];
  const byName = new Map(found.map((item) => [item.domainName, parseItem(DomainRecord, entity, item)]));
  return names.flatMap((name) => {
    const d = byName.get(name);
    return d && d.customer === customer ? [d] : [];
  });
}

/**
 * One page of a customer's domains from the partition of `source`, in its order (ascending unless
 * not `ascending`): one Query of at most `limit` items (the status listing then reads its domains
 * with one BatchGet). Never another customer's: every partition names the customer.
 */
export async function readDomainPage(
  customer: string,
  source: DomainSource,
  options: { limit: number; ascending: boolean; start?: DomainCursor },
): Promise<{ domains: DomainRecord[]; read: number; next?: DomainCursor }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...partitionOf(customer, source),
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  const next = out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {};
  if (source.index !== 'status') {
    return { domains: items.map((item) => parseItem(DomainRecord, entity, item)), read: items.length, ...next };
  }
  const names = items.map((item) => parseItem(StatusListing, statusEntity, item).domainName);
  const domains = await readDomainsByName(customer, names);
  return { domains, read: items.length + domains.length, ...next };
}

/**
 * Where a listing of `source` goes on after skipping `count` domains, counting keys only (Select
 * COUNT over the keys-only twin, or the small status items): the cursor to read the page from, or
 * undefined when the source holds no more than `count`.
 */
export async function skipDomains(
  customer: string,
  source: DomainSource,
  count: number,
  ascending: boolean,
  bound?: KeyReadBound,
): Promise<DomainCursor | undefined> {
  const partition = partitionOf(customer, source, true);
  let read = 0;
  let start: DomainCursor | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...partition,
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: bound ? Math.min(count - read, boundedPageKeys) : count - read,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += out.Count ?? 0;
    start = out.LastEvaluatedKey;
    if (start && read < count) checkBound(bound, read);
  } while (start && read < count);
  return read === count ? start : undefined;
}

/** Keys one Query of a bounded count or skip reads at most: its time is checked between them. */
const boundedPageKeys = 2_500;

/**
 * How far a listing may read keys to skip or count: at most `max` of them, and not after `until`
 * (ms since the epoch); past either, `refuse` says why (a request's answer, never its time-out).
 */
export interface KeyReadBound {
  max: number;
  until: number;
  refuse: (why: 'broad' | 'slow') => Error;
}

function checkBound(bound: KeyReadBound | undefined, read: number): void {
  if (!bound) return;
  if (read > bound.max) throw bound.refuse('broad');
  if (Date.now() >= bound.until) throw bound.refuse('slow');
}

/**
 * How many domains a source holds, counted over keys only (Select COUNT, 1 MB of index entries a
 * call, about 10,000 domains): the listing's `total` of a source that answers every filter.
 */
export async function countDomains(customer: string, source: DomainSource, bound?: KeyReadBound): Promise<number> {
  const partition = partitionOf(customer, source, true);
  let count = 0;
  let start: DomainCursor | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...partition,
        Select: 'COUNT',
        // Never more than one key past the bound; pages small enough that its time is checked often.
        ...(bound ? { Limit: Math.min(bound.max + 1 - count, boundedPageKeys) } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
    if (start) checkBound(bound, count);
  } while (start);
  return count;
}

/**
 * Writes a domain stored by an earlier version again as it is now read (statuses upper case, the
 * later fields' defaults, its expiry listing and its status listing), unless it changed since it
 * was read (`updatedDate`): false then (its writer wrote it in the current layout).
 */
export async function rewriteDomain(record: DomainRecord): Promise<boolean> {
  try {
    await transact([
      {
        Put: {
          TableName: tableName(),
          Item: domainItem(record),
          ConditionExpression: 'updatedDate = :was',
          ExpressionAttributeValues: { ':was': record.updatedDate },
        },
      },
      ...statusItems(record),
    ]);
    return true;
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}

/**
 * Puts a domain's entry in the expiry job's listing (keys.domainDue) where the domain was stored
 * before the listing existed (or its entry is not where its due time says): one transaction, the
 * entry put only while the domain is unchanged since read (its writer then put it). False when it
 * changed meanwhile.
 */
export async function placeDueEntry(record: DomainRecord): Promise<boolean> {
  try {
    await transact([
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.domainByName(record.domainName),
          ConditionExpression: 'updatedDate = :was',
          ExpressionAttributeValues: { ':was': record.updatedDate },
        },
      },
      duePut(record),
    ]);
    return true;
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}

/** Whether a domain's due entry is missing or not at its due time (`entries`: the stored entries' due times by domain name). */
export function lacksDueEntry(record: DomainRecord, entries: ReadonlyMap<string, string>): boolean {
  return entries.get(record.domainName) !== dueOf(record);
}

/** Whether a stored domain item is in an earlier layout (no expiry listing, statuses or fields of an earlier version). */
export function isOldDomainItem(item: Record<string, unknown>): boolean {
  if (item.entity !== entity) return false;
  const status = Array.isArray(item.status) ? (item.status as string[]) : [];
  return (
    item.gsi2pk === undefined ||
    item.autoRenewPeriod === undefined ||
    item.premium === undefined ||
    status.some((s) => !/^[A-Z0-9_]+$/.test(s))
  );
}

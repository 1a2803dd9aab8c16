import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { TemplateRecord, type ZoneHeader, type ZoneKeyRollover, type ZoneRecord, type ZoneRecordEntry } from '../../model/zone.ts';
import { ValidZoneRecordEntry } from '../../model/zone-validation.ts';
import { db } from '../client.ts';
import { batchWriteAll, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, putNew, type TransactItem, transact } from '../transactions.ts';
import { putZoneDue, zoneDueItems } from './zone-premium.ts';
import { getZoneHead, getZoneHeadsByName, type RetiredGeneration, type ZoneHead, zoneEntity, zoneRecordEntity } from './zones.ts';

/**
 * Writing zones (the layout is described in zones.ts). A zone is never visible half-written:
 *
 * - a whole zone (a dataset load, an import, the migration, provisioning on transfer completion)
 *   is written as a new generation of record items that no header names yet, then the header is
 *   switched to it in one conditional write (the commit point; for a new zone, inside the
 *   transfer's transaction), then the old generation's items are deleted. Readers take the
 *   header's generation, so they see the old zone or the new one. A writer that stops before the
 *   switch leaves items of a generation no header names: readers never see them, and the next
 *   write of that zone deletes them;
 * - the DCV records a renewal adds (and anything else that changes only the header) are one
 *   conditional update of the header item, inside the caller's transaction.
 *
 * Every record is checked by its type before it is written (model/zone-validation.ts).
 */

/** Where a zone's staged records are: their generation and how many there are. */
export interface StagedRecords {
  domainName: string;
  generation: string;
  recordCount: number;
}

/** A fresh generation name: 10 hex characters, so concurrent writers never share one. */
function newGeneration(): string {
  return randomBytes(5).toString('hex');
}

/** Checks records by their type; throws naming the first that may not be written. */
export function checkedRecords(domainName: string, records: readonly ZoneRecordEntry[]): ZoneRecordEntry[] {
  return records.map((record, i) => {
    const result = v.safeParse(ValidZoneRecordEntry, record);
    if (!result.success) throw new Error(`Zone ${domainName}, record ${i} (${record.type} ${record.name}): ${result.issues[0].message}`);
    return result.output;
  });
}

/**
 * Writes a zone's records as a new generation that no header names yet (BatchWrite, 25 a request).
 * Each record item carries the zone's customer and its places in that customer's partitions of the
 * name (gsi3) and of the zone's id (gsi2), so either zone GET reads the caller's zone whole in one
 * Query (zones.ts, getDomainAndZone and getOwnZoneById).
 */
export async function stageRecords(
  zone: Pick<ZoneHeader, 'domainName' | 'customer' | 'id'>,
  records: readonly ZoneRecordEntry[],
): Promise<StagedRecords> {
  const { domainName, customer } = zone;
  const valid = checkedRecords(domainName, records);
  const generation = newGeneration();
  await batchWriteAll(
    valid.map((record, i) => ({
      put: toItem(keys.ownedZoneRecord(zone, generation, i), zoneRecordEntity, { ...record, customer }),
    })),
  );
  return { domainName, generation, recordCount: valid.length };
}

/** The header item of a zone whose records are `staged` (and `retired`: generations still being deleted). */
function headerItem(
  zone: ZoneHeader,
  staged: StagedRecords,
  revision: number,
  retired: readonly RetiredGeneration[] = [],
): Record<string, unknown> {
  const dcvRecords = zone.dcvRecords ? checkedRecords(zone.domainName, zone.dcvRecords) : undefined;
  return toItem(keys.zone(zone.domainName, zone.customer, zone.id), zoneEntity, {
    ...zone,
    ...(dcvRecords ? { dcvRecords } : {}),
    generation: staged.generation,
    recordCount: staged.recordCount,
    revision,
    ...(retired.length > 0 ? { retired: [...retired] } : {}),
  });
}

/** The transaction item creating a new zone whose records are staged: cancelled when the name has a zone. */
export function newZoneItem(zone: ZoneHeader, staged: StagedRecords): TransactItem {
  return putNew(headerItem(zone, staged, 1));
}

/**
 * The transaction item turning the account's own zone into a managed one (transfer completion,
 * spec 2.2): the header only, while the zone is still the customer's; its records stay as they are.
 */
export function convertZoneItem(
  zone: Pick<ZoneHeader, 'domainName' | 'customer'> & Partial<Pick<ZoneHeader, 'service' | 'paidUntil'>>,
  at: string,
  ns?: readonly string[],
): TransactItem {
  // A zone made PREMIUM by the conversion (a transfer that paid for a PREMIUM zone: shared/transfer/lifecycle.ts).
  const premium = zone.service === 'PREMIUM' && zone.paidUntil !== undefined;
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(zone.domainName),
      UpdateExpression: `SET managed = :managed, updatedDate = :now${ns ? ', ns = :ns' : ''}${premium ? ', service = :service, paidUntil = :until' : ''} ADD revision :one, serial :one`,
      ConditionExpression: 'customer = :customer',
      ExpressionAttributeValues: {
        ':managed': true,
        ':now': at,
        ':one': 1,
        ':customer': zone.customer,
        ...(ns ? { ':ns': [...ns] } : {}),
        ...(premium ? { ':service': 'PREMIUM', ':until': zone.paidUntil } : {}),
      },
    },
  };
}

/**
 * The zone part of a domain update (shared/domains/update-zone.ts decides it), written in the
 * transaction of the domain's write: a new managed zone (its records staged first, as a
 * transfer's new zone is), the caller's plain zone made managed, the managed zone re-linked (its
 * records replaced by a staged generation over the revision read), the managed zone removed
 * (over the revision read), or only its name servers set (`ns`). Every write raises the zone's
 * revision, so zone-sync brings DNS in line (or removes the zone there).
 */
export type DomainZoneWrite =
  | { kind: 'create'; zone: ZoneRecord }
  | { kind: 'convert'; zone: Pick<ZoneHeader, 'domainName' | 'customer'>; ns?: readonly string[] }
  | { kind: 'replace'; zone: ZoneRecord; previous: ZoneHead }
  | { kind: 'remove'; previous: ZoneHead }
  | { kind: 'ns'; domainName: string; customer: string; ns: readonly string[] };

/** How a DomainZoneWrite joins its transaction: staged before, one item in it, tidied after. */
export interface ZoneWriteAlong {
  /** Stages the records the write names (nothing for a header-only write). */
  stage(): Promise<void>;
  /** The transaction item; its condition failing means the zone changed since it was read. */
  item(at: string): TransactItem;
  /** Items without a condition that go along (a new PREMIUM zone's due entry: zone-premium.ts). */
  alongItems(): TransactItem[];
  /** After the commit: the records no header names any more are deleted. */
  committed(): Promise<void>;
  /** After a transaction that did not happen (cancelled or refused; undefined: known not to have happened): the staged records removed. */
  failed(error: unknown): Promise<void>;
}

/** A zone's record generations as read: the one its header names, then those still being deleted. */
function generationsOf(previous: ZoneHead): RetiredGeneration[] {
  return [
    ...(previous.retired ?? []),
    ...(previous.generation !== undefined ? [{ generation: previous.generation, recordCount: previous.recordCount }] : []),
  ];
}

/** Errors with which DynamoDB refuses a request without carrying it out (nothing of it was written). */
const refusals = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'ValidationException']);

export function domainZoneWrite(write: DomainZoneWrite): ZoneWriteAlong {
  let staged: StagedRecords | undefined;
  return {
    async stage() {
      if ((write.kind === 'create' || write.kind === 'replace') && !staged) staged = await stageRecords(write.zone, write.zone.records);
    },
    alongItems() {
      return write.kind === 'create' ? zoneDueItems(write.zone) : [];
    },
    item(at) {
      switch (write.kind) {
        case 'ns':
          return zoneNameServersItem(write.domainName, write.customer, write.ns, at);
        case 'convert':
          return convertZoneItem({ domainName: write.zone.domainName, customer: write.zone.customer }, at, write.ns);
        case 'remove': {
          const { domainName, customer } = write.previous.zone;
          const condition = overRevision(customer, write.previous.revision);
          return {
            Delete: {
              TableName: tableName(),
              Key: keys.zoneByName(domainName),
              ConditionExpression: `${condition.ConditionExpression} AND managed = :managed`,
              ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':managed': true },
            },
          };
        }
        case 'create':
        case 'replace': {
          if (!staged) throw new Error(`The records of the zone of ${write.zone.domainName} were not staged`);
          const { records: _, ...header } = write.zone;
          if (write.kind === 'create') return newZoneItem(header, staged);
          const revision = write.previous.revision;
          return {
            Put: {
              TableName: tableName(),
              Item: headerItem(header, staged, revision + 1, generationsOf(write.previous)),
              ...overRevision(header.customer, revision),
            },
          };
        }
      }
    },
    async committed() {
      // The previous generations: listed as retired by the new header (replace), or named by no header (remove).
      if (write.kind === 'replace') await sweepRetired(write.zone.domainName, write.previous.revision + 1, generationsOf(write.previous));
      if (write.kind === 'remove') {
        const { domainName } = write.previous.zone;
        for (const generation of generationsOf(write.previous)) await deleteGeneration({ domainName, ...generation });
      }
    },
    async failed(error) {
      // After a time-out or a server error the transaction may have committed: the staged records stay (no reader sees them unnamed).
      if (error !== undefined && cancellationCodes(error) === undefined && !refusals.has((error as Error)?.name)) return;
      await discardStaged(staged);
      staged = undefined;
    },
  };
}

/**
 * The transaction item adding DCV records to a zone of this customer (a renewal): appended to the
 * header's `dcvRecords` in one update, while the zone is still the customer's.
 */
export function appendDcvRecordsItem(domainName: string, customer: string, records: ZoneRecordEntry[], at: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(domainName),
      UpdateExpression:
        'SET dcvRecords = list_append(if_not_exists(dcvRecords, :none), :records), updatedDate = :now ADD revision :one, serial :one',
      ConditionExpression: 'customer = :customer',
      ExpressionAttributeValues: {
        ':records': checkedRecords(domainName, records),
        ':none': [],
        ':now': at,
        ':one': 1,
        ':customer': customer,
      },
    },
  };
}

/**
 * The transaction item setting the name servers a managed zone of this customer serves as its NS
 * records (its `ns`), in the transaction of the domain's name server change, raising its revision
 * so zone-sync brings DNS in line.
 */
export function zoneNameServersItem(domainName: string, customer: string, ns: readonly string[], at: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(domainName),
      UpdateExpression: 'SET ns = :ns, updatedDate = :now ADD revision :one, serial :one',
      ConditionExpression: 'customer = :customer AND managed = :managed',
      ExpressionAttributeValues: { ':ns': [...ns], ':now': at, ':one': 1, ':customer': customer, ':managed': true },
    },
  };
}

/** A DCV record as a zone's header holds it, named exactly: the zone (domain name), its name, type and contents. */
export interface ZoneRecordRef {
  zone: string;
  name: string;
  type: string;
  content: string;
}

/**
 * Transaction items removing these DCV records from the customer's zones (the records a
 * certificate request appended to the headers' `dcvRecords`), for use inside the caller's
 * transaction. A record the zone no longer holds, or a zone that is no longer the customer's, is
 * left alone. The headers are read first (one BatchGet) and each record is removed at its
 * position, under the condition that the position still holds it: a concurrent change of the zone
 * cancels the transaction instead of removing another record.
 */
export async function removeDcvRecordsItems(customer: string, records: readonly ZoneRecordRef[], at: string): Promise<TransactItem[]> {
  const names = [...new Set(records.map((r) => r.zone))];
  const heads = (await getZoneHeadsByName(names)).filter((head) => head.zone.customer === customer);
  return heads.flatMap(({ zone }) => {
    const held = zone.dcvRecords ?? [];
    const positions = new Set<number>();
    for (const r of records.filter((x) => x.zone === zone.domainName)) {
      const i = held.findIndex((e, n) => !positions.has(n) && e.name === r.name && e.type === r.type && e.content === r.content);
      if (i >= 0) positions.add(i);
    }
    return positions.size > 0 ? [removeDcvAtPositions(zone.domainName, customer, held, [...positions], at)] : [];
  });
}

/** The header update removing the DCV records at these positions, each only while it still holds what was read there. */
function removeDcvAtPositions(
  domainName: string,
  customer: string,
  held: ZoneRecordEntry[],
  positions: number[],
  at: string,
): TransactItem {
  const values: Record<string, unknown> = { ':customer': customer, ':now': at, ':one': 1 };
  const conditions = ['customer = :customer'];
  for (const i of positions) {
    const r = held[i] as ZoneRecordEntry;
    Object.assign(values, { [`:n${i}`]: r.name, [`:t${i}`]: r.type, [`:c${i}`]: r.content });
    conditions.push(`#dcv[${i}].#name = :n${i} AND #dcv[${i}].#type = :t${i} AND #dcv[${i}].content = :c${i}`);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: keys.zoneByName(domainName),
      UpdateExpression: `REMOVE ${positions.map((i) => `#dcv[${i}]`).join(', ')} SET updatedDate = :now ADD revision :one, serial :one`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: { '#dcv': 'dcvRecords', '#name': 'name', '#type': 'type' },
      ExpressionAttributeValues: values,
    },
  };
}

/** Deletes the record items of a zone except those of `keep` (old generations, and any a stopped writer left). */
export async function deleteOtherGenerations(domainName: string, keep: string | undefined): Promise<void> {
  const all = keys.zoneRecords(domainName).skPrefix;
  const kept = keep === undefined ? undefined : keys.zoneRecords(domainName, keep).skPrefix;
  const doomed: { pk: string; sk: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.domainCollection(domainName).pk, ':prefix': all },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const sk = String(item.sk);
      if (kept === undefined || !sk.startsWith(kept)) doomed.push({ pk: String(item.pk), sk });
    }
    start = out.LastEvaluatedKey;
  } while (start);
  await batchWriteAll(doomed.map((key) => ({ delete: key })));
}

/** Deletes the items of staged records (a write that did not happen). */
async function deleteStaged(staged: StagedRecords): Promise<void> {
  await batchWriteAll(
    Array.from({ length: staged.recordCount }, (_, i) => {
      const { pk, sk } = keys.zoneRecord(staged.domainName, staged.generation, i);
      return { delete: { pk, sk } };
    }),
  );
}

/** Removes records staged for a write that did not happen (best effort: the next write of the zone removes what is left). */
export async function discardStaged(staged: StagedRecords | undefined): Promise<void> {
  if (staged) await deleteStaged(staged).catch(() => undefined);
}

/** Switches a zone's header to a staged generation, if the header is still `previous` (or, with none, if there is no zone). */
async function switchHeader(zone: ZoneHeader, staged: StagedRecords, previous: ZoneHead | undefined): Promise<boolean> {
  const condition = !previous
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : previous.generation === undefined
      ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(generation)' }
      : { ConditionExpression: 'generation = :generation', ExpressionAttributeValues: { ':generation': previous.generation } };
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: headerItem(zone, staged, (previous?.revision ?? 0) + 1),
        ...condition,
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Writes a whole zone, records included (a dataset load, an import, the migration): a new
 * generation, the header switched to it, the old one deleted. With `ifAbsent`, an existing zone is
 * kept and false is returned. When another writer switched the header meanwhile, the write is
 * made again over the zone it left (the last writer wins, whole).
 */
export async function putZone(zone: ZoneRecord, ifAbsent = false): Promise<boolean> {
  const { records, ...header } = zone;
  for (let attempt = 0; attempt < 5; attempt++) {
    const previous = await getZoneHead(zone.domainName, true);
    if (previous && ifAbsent) return false;
    const staged = await stageRecords(zone, records);
    if (await switchHeader(header, staged, previous)) {
      await putZoneDue(header);
      await deleteOtherGenerations(zone.domainName, staged.generation);
      return true;
    }
    await deleteStaged(staged);
  }
  throw new Error(`The zone of ${zone.domainName} kept changing while it was written`);
}

const templateEntity = 'template';

/** Writes a template, its records checked by type. With `ifAbsent`, an existing one is kept and false is returned. */
export async function putTemplate(record: TemplateRecord, ifAbsent = false): Promise<boolean> {
  const valid = { ...v.parse(TemplateRecord, record), records: checkedRecords(`template ${record.name}`, record.records) };
  return putItem(toItem(keys.template(record.customer, record.name), templateEntity, valid), ifAbsent);
}

/**
 * The zone API's writes (shared/dns/: create, update, delete). Each commits in one transaction
 * with whatever the caller commits along (an Idempotency-Key's answer): the records are staged
 * first as a generation no header names, then the header is put (or deleted) under a condition,
 * so the zone and its records change together or not at all, and a reader sees the old zone or
 * the new one whole.
 */

/** Why a zone API write did not happen: the name has a zone (or another customer's domain), or the zone changed since it was read. */
export type ZoneWriteRefusal = 'exists' | 'changed';

/** The condition of a header put over the revision `expected` of the caller's zone. */
function overRevision(customer: string, expected: number) {
  return {
    ConditionExpression: 'customer = :customer AND revision = :revision',
    ExpressionAttributeValues: { ':customer': customer, ':revision': expected },
  };
}

/** Whether a transaction was cancelled by the condition of one of its first `n` items. */
function cancelledByCondition(error: unknown, n: number): boolean {
  const codes = cancellationCodes(error);
  return codes?.slice(0, n).includes('ConditionalCheckFailed') === true;
}

/**
 * Whether a zone of `customer` for the name would be refused: a zone of anyone's, or a domain of
 * another customer. Read before anything is staged or an id is taken, so that a refused create
 * writes nothing; the create's transaction still decides when a create races this read.
 */
export async function zoneNameTaken(domainName: string, customer: string): Promise<boolean> {
  const read = (key: { pk: string; sk: string }) =>
    db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true, ProjectionExpression: 'customer' }));
  const [zone, domain] = await Promise.all([read(keys.zoneByName(domainName)), read(keys.domainByName(domainName))]);
  return zone.Item !== undefined || (domain.Item !== undefined && domain.Item.customer !== customer);
}

/**
 * Creates a zone (a new name in the table) with its records: refused ('exists') when the name has
 * a zone of anyone, or a domain of another customer.
 */
export async function createZoneRecord(zone: ZoneRecord, along: readonly TransactItem[]): Promise<ZoneWriteRefusal | undefined> {
  const { records, ...header } = zone;
  const staged = await stageRecords(zone, records);
  try {
    await transact([
      putNew(headerItem(header, staged, 1)),
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.domainByName(zone.domainName),
          ConditionExpression: 'attribute_not_exists(pk) OR customer = :customer',
          ExpressionAttributeValues: { ':customer': zone.customer },
        },
      },
      ...along,
      // A PREMIUM zone's year listed for the expiry job (zone-premium.ts).
      ...zoneDueItems(header),
    ]);
    return undefined;
  } catch (error) {
    await discardStaged(staged);
    if (cancelledByCondition(error, 2)) return 'exists';
    throw error;
  }
}

/**
 * Replaces a zone of the caller whole (settings and records) if its revision is still `expected`:
 * the new generation staged, the header switched to it with the revision raised (one conditional
 * put, in the transaction of `along`), then the old generation deleted. 'changed' when another
 * write came first: nothing was written. `previousRecords`: the records of `previous` as read; when
 * the new records are the same, the header keeps their generation.
 *
 * The old generation's items are deleted after the commit, until `deadline` (epoch ms; none: all of
 * them): the header the commit writes lists it in `retired` until every item is gone, so what a
 * write could not delete in its time (a 10,000-record zone replaced within a request) is deleted by
 * the zone's next write. No reader ever reads a retired generation.
 */
export async function replaceZoneRecord(
  zone: ZoneRecord,
  previous: ZoneHead,
  along: readonly TransactItem[],
  previousRecords?: readonly ZoneRecordEntry[],
  deadline?: number,
): Promise<ZoneWriteRefusal | undefined> {
  const expected = previous.revision;
  const { records, ...header } = zone;
  // Records exactly as the header's generation holds them (a change of settings only): the header
  // keeps that generation, and nothing is staged or deleted. A 10,000-record zone's TTL change is
  // then one transaction, not 20,000 item writes.
  const kept = previous.generation !== undefined && sameRecords(records, previousRecords);
  const staged = kept
    ? { domainName: zone.domainName, generation: previous.generation as string, recordCount: previous.recordCount }
    : await stageRecords(zone, records);
  const retired = [
    ...(previous.retired ?? []),
    ...(!kept && previous.generation !== undefined ? [{ generation: previous.generation, recordCount: previous.recordCount }] : []),
  ];
  try {
    await transact([
      {
        Put: {
          TableName: tableName(),
          Item: headerItem(header, staged, expected + 1, retired),
          ...overRevision(zone.customer, expected),
        },
      },
      ...along,
      // A zone made PREMIUM (a new paid-until time) is listed for the expiry job (zone-premium.ts).
      ...(header.paidUntil !== previous.zone.paidUntil ? zoneDueItems(header) : []),
    ]);
  } catch (error) {
    if (!kept) await discardStaged(staged);
    if (cancelledByCondition(error, 1)) return 'changed';
    throw error;
  }
  await sweepRetired(zone.domainName, expected + 1, retired, deadline);
  return undefined;
}

/**
 * Deletes the items of retired generations, in order, until `deadline`; when all are gone, the
 * header's `retired` is removed (only while the header is still at `revision`: a later write carries
 * the list on and sweeps it itself). True when every item was deleted.
 */
async function sweepRetired(
  domainName: string,
  revision: number,
  retired: readonly RetiredGeneration[],
  deadline?: number,
): Promise<boolean> {
  if (retired.length === 0) return true;
  for (const generation of retired) {
    if (!(await deleteGeneration({ domainName, ...generation }, deadline))) return false;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.zoneByName(domainName),
        UpdateExpression: 'REMOVE retired',
        ConditionExpression: 'revision = :revision',
        ExpressionAttributeValues: { ':revision': revision },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
  return true;
}

/** Deletes a generation's items by key, a slice at a time, stopping at `deadline`; true when all are deleted. */
async function deleteGeneration(staged: StagedRecords, deadline?: number): Promise<boolean> {
  const slice = 500;
  for (let from = 0; from < staged.recordCount; from += slice) {
    if (deadline !== undefined && Date.now() >= deadline) return false;
    const to = Math.min(staged.recordCount, from + slice);
    await batchWriteAll(
      Array.from({ length: to - from }, (_, i) => {
        const { pk, sk } = keys.zoneRecord(staged.domainName, staged.generation, from + i);
        return { delete: { pk, sk } };
      }),
    );
  }
  return true;
}

/** Whether two record lists are the same records in the same order (the positions are the item keys). */
function sameRecords(a: readonly ZoneRecordEntry[], b: readonly ZoneRecordEntry[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as ZoneRecordEntry;
    const y = b[i] as ZoneRecordEntry;
    if (x.name !== y.name || x.type !== y.type || x.content !== y.content || x.ttl !== y.ttl || x.prio !== y.prio) return false;
  }
  return true;
}

/**
 * Deletes a zone of the caller if its revision is still `expected`: the header (the commit point:
 * no reader finds the zone after it, and the stream tells the DNS sync to remove it) in the
 * transaction of `along`, then its record items by key (its generation and any retired one: never
 * another writer's staged records), until `deadline` (none: all of them). Items left past the
 * deadline belong to no header and are never read; the next whole write of the name (putZone)
 * deletes them.
 */
export async function deleteZoneRecord(
  previous: ZoneHead,
  along: readonly TransactItem[],
  deadline?: number,
): Promise<ZoneWriteRefusal | undefined> {
  const { domainName, customer } = previous.zone;
  try {
    await transact([
      { Delete: { TableName: tableName(), Key: keys.zoneByName(domainName), ...overRevision(customer, previous.revision) } },
      ...along,
    ]);
  } catch (error) {
    if (cancelledByCondition(error, 1)) return 'changed';
    throw error;
  }
  const generations = [
    ...(previous.generation !== undefined ? [{ generation: previous.generation, recordCount: previous.recordCount }] : []),
    ...(previous.retired ?? []),
  ];
  for (const generation of generations) if (!(await deleteGeneration({ domainName, ...generation }, deadline))) break;
  return undefined;
}

/**
 * Sets a zone's key rollover (its start, or its move to `retire`) if the zone's revision is still
 * the one read: the header's `keyRollover` and its revision raised (so the DNS sync carries the step
 * out), in the transaction of `along` (the rollover's process, an Idempotency-Key's answer).
 * 'changed' when another write came first: nothing was written.
 */
export async function setZoneKeyRollover(
  previous: ZoneHead,
  keyRollover: ZoneKeyRollover,
  along: readonly TransactItem[],
): Promise<ZoneWriteRefusal | undefined> {
  const { domainName, customer } = previous.zone;
  const condition = overRevision(customer, previous.revision);
  try {
    await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.zoneByName(domainName),
          UpdateExpression: 'SET keyRollover = :keyRollover, revision = :next',
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeValues: {
            ...condition.ExpressionAttributeValues,
            ':keyRollover': keyRollover,
            ':next': previous.revision + 1,
          },
        },
      },
      ...along,
    ]);
    return undefined;
  } catch (error) {
    if (cancelledByCondition(error, 1)) return 'changed';
    throw error;
  }
}

/**
 * Gives a zone header written before zones were found by id its entry on gsi2 (keys.zoneById),
 * if it still has that id: the migration's step for `/v2/dns/zones/{id}`. The zone's revision is
 * left alone (nothing it serves changes). False when the header is gone or has another id.
 */
export async function indexZoneId(domainName: string, id: number, customer: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.zoneByName(domainName),
        UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk',
        ConditionExpression: 'attribute_exists(pk) AND id = :id AND customer = :customer',
        ExpressionAttributeValues: {
          ':pk': keys.zoneById(id, customer).gsi2pk,
          ':sk': keys.zoneById(id, customer).gsi2sk,
          ':id': id,
          ':customer': customer,
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

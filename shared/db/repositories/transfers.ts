import type * as v from 'valibot';
import { ContactRecord } from '../../model/contact.ts';
import { CustomerRecord } from '../../model/customer.ts';
import { DomainRecord } from '../../model/domain.ts';
import { transferNotification } from '../../model/notification.ts';
import type { ProcessRecord } from '../../model/process.ts';
import type { ProviderRecord } from '../../model/provider.ts';
import { processStatusOf, TransferLock, type TransferMove, type ZoneEffect } from '../../model/transfer.ts';
import { TemplateRecord, type ZoneHeader } from '../../model/zone.ts';
import { listGsi1Range, parseItem, putItem, queryAll, readItems, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import {
  cancellationCodes,
  checkAbsent,
  counterKey,
  counterValue,
  putExisting,
  putNew,
  type TransactItem,
  transact,
  transactWithIds,
} from '../transactions.ts';
import { type Commitment, itemsOf } from './commit-with.ts';
import { domainItem, statusItems } from './domains.ts';
import { notificationWrites } from './notifications.ts';
import type { Counted } from './process-counts.ts';
import { changedProcessItems, newProcessItems, processItem } from './processes.ts';
import { registryCandidates, registryFromExtensionItems } from './providers.ts';
import { zoneDueItems } from './zone-premium.ts';
import { convertZoneItem, discardStaged, newZoneItem, type StagedRecords, stageRecords } from './zone-writes.ts';
import { parseZoneHead, zoneEntity } from './zones.ts';

/**
 * The transfer's items and transactions. A transfer in progress is two items: the process
 * (contract section 5, transfer state in `details`) and the domain's pending state, an item in the
 * domain's collection (`DOMAIN#<name>` / `TRANSFER`) whose existence is the lock: one transfer per
 * name at a time, whoever asks. Every later move of a transfer is one transaction guarded by that
 * item's version.
 */

const lockEntity = 'domainTransfer';

function lockItem(lock: TransferLock): Record<string, unknown> {
  return toItem(keys.domainTransfer(lock.domainName, lock.actionDate), lockEntity, lock);
}

/** Puts a domain's pending state as it is (dataset import: restores a transfer in progress). */
export function putTransferLock(lock: TransferLock, ifAbsent = false): Promise<boolean> {
  return putItem(lockItem(lock), ifAbsent);
}

/**
 * A domain name's collection in one Query: the domain (any account), its zone's header and a
 * running transfer; the zone's records (which sort after them) are not read.
 */
export async function readDomainCollection(domainName: string): Promise<{ domain?: DomainRecord; zone?: ZoneHeader; lock?: TransferLock }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk < :records',
    ExpressionAttributeValues: { ':pk': keys.domainCollection(domainName).pk, ':records': keys.zoneRecords(domainName).skPrefix },
    ConsistentRead: true,
  });
  const out: { domain?: DomainRecord; zone?: ZoneHeader; lock?: TransferLock } = {};
  for (const item of items) {
    if (item.entity === 'domain') out.domain = parseItem(DomainRecord, 'domain', item);
    else if (item.entity === zoneEntity) out.zone = parseZoneHead(item).zone;
    else if (item.entity === lockEntity) out.lock = parseItem(TransferLock, lockEntity, item);
  }
  return out;
}

/**
 * Pending transfers whose actionDate is at or before `at`, oldest first: one gsi1 Query page of at
 * most `limit` (a run takes the oldest; the rest are still due at the next run).
 */
export function listDueTransfers(at: string, limit = 100): Promise<TransferLock[]> {
  return listGsi1Range(keys.transfersDue(at), limit, TransferLock, lockEntity);
}

/** Why a new transfer could not be recorded: a transfer runs for the name, an account holds it, or its zone changed meanwhile. */
export type StartConflict = 'pending' | 'held' | 'zone';

/**
 * The items recording a new transfer with the registry's first answer (a TransferMove): the process;
 * the name's pending state while waiting, else the check that no transfer runs for the name (item 1);
 * the domain on completion, else the check that no account holds the name (item 2); the zone a
 * completion writes (item 3); last, the process's identifier listing and counts, which have no condition.
 */
function firstItems(move: TransferMove, zone: ZoneWrite): TransactItem[] {
  const domainName = move.lock?.domainName ?? move.domain?.domainName ?? String(move.process.identifier);
  const items: TransactItem[] = [
    putNew(processItem(move.process)),
    move.lock ? putNew(lockItem(move.lock)) : checkAbsent(keys.domainTransferByName(domainName)),
    move.domain ? putNew(domainItem(move.domain)) : checkAbsent(keys.domainByName(domainName)),
  ];
  if (move.zone) items.push(zone.item(move.zone));
  // The domain's status listing: after the items whose conditions startConflict reads by position.
  if (move.domain) items.push(...statusItems(move.domain));
  items.push(...newProcessItems(move.process));
  if (move.zone) items.push(...zone.alongItems(move.zone));
  return items;
}

/**
 * The conflict a cancelled recording transaction reports, if a condition of the transfer's own
 * items failed (firstItems; the zone's only when `move` writes one).
 */
function startConflict(error: unknown, move: TransferMove | undefined): StartConflict | undefined {
  const codes = cancellationCodes(error);
  if (codes?.[1] === 'ConditionalCheckFailed') return 'pending';
  if (codes?.[2] === 'ConditionalCheckFailed') return 'held';
  if (move?.zone && codes?.[3] === 'ConditionalCheckFailed') return 'zone';
  return undefined;
}

/** The sequences a new transfer claims ids from: always a process, and a zone when its completion creates one. */
export interface StartCounters {
  process: number;
  zone?: number;
}

/**
 * Records a new transfer, which the registry has already taken, in one transaction with the ids it
 * needs (db/transactions.ts: the counters were read with the request's other items, so claiming
 * costs no call of its own). `build` makes the move for the claimed ids; `commitWith` what is
 * committed with it (commit-with.ts), after the transfer's own items. Answers the move as written,
 * or the conflict instead of throwing when a condition of the transfer's items fails; nothing is
 * written then.
 */
export async function recordNewTransfer(
  counters: StartCounters,
  build: (ids: { process: number; zone?: number }) => TransferMove,
  commitWith?: (move: TransferMove) => Commitment,
): Promise<{ move: TransferMove } | { conflict: StartConflict }> {
  // Only the sequences given: a zone id is claimed only when the completion creates a zone.
  const current = Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== undefined)) as Record<string, number>;
  let move: TransferMove | undefined;
  const zone = zoneWrite();
  try {
    await transactWithIds(current, async (ids) => {
      move = build({ process: ids.process as number, ...(ids.zone !== undefined ? { zone: ids.zone } : {}) });
      await zone.stage(move.zone);
      return [
        ...firstItems(move, zone),
        ...itemsOf(commitWith?.(move)),
        ...notificationWrites(transferNotification(move.process, undefined)),
      ];
    });
  } catch (error) {
    await zone.discardIfCancelled(error);
    const conflict = startConflict(error, move);
    if (conflict) return { conflict };
    throw error;
  }
  // The builder ran for the ids of the transaction that committed (the last one).
  return { move: move as TransferMove };
}

/** Puts a transfer as it stands (tests of the poller: a transfer recorded at some earlier state). */
export async function putTransfer(process: ProcessRecord, lock: TransferLock): Promise<void> {
  await transact([putNew(processItem(process)), putNew(lockItem(lock)), ...newProcessItems(process)]);
}

/** Everything a transfer request reads of the table besides the price list, as one consistent BatchGet. */
export interface TransferSnapshot {
  registry?: { extension: string; provider: ProviderRecord };
  customer?: CustomerRecord;
  contacts: Map<string, ContactRecord | undefined>;
  template?: TemplateRecord;
  domain?: DomainRecord;
  /** The name's zone (any account's), without its records. */
  zone?: ZoneHeader;
  lock?: TransferLock;
  /** The process and zone sequences as read (for recordNewTransfer). */
  processCounter: number;
  zoneCounter: number;
}

/**
 * Reads a transfer request's items in one strongly consistent BatchGet: the extension index
 * (with the registry's record), the customer, the contact handles, the zone template, the domain
 * name's collection (domain, zone, running transfer) and the process and zone sequences.
 */
export async function readTransferSnapshot(
  customer: string,
  domainName: string,
  handles: readonly string[],
  template: string | undefined,
): Promise<TransferSnapshot> {
  const candidates = registryCandidates(domainName);
  const named: Record<string, { pk: string; sk: string }> = {
    customer: keys.customerByHandle(customer),
    domain: keys.domainByName(domainName),
    zone: keys.zoneByName(domainName),
    lock: keys.domainTransferByName(domainName),
    counter: counterKey('process'),
    zoneCounter: counterKey('zone'),
  };
  candidates.forEach((c, i) => {
    named[`extension${i}`] = c.key;
  });
  handles.forEach((h, i) => {
    named[`contact${i}`] = keys.contactByHandle(customer, h);
  });
  if (template !== undefined) named.template = keys.template(customer, template);
  const items = await readItems(named, { consistent: true });
  const extensionItems = candidates.map((_, i) => items[`extension${i}`]).filter((item) => item !== undefined);
  const parsed = <T>(name: string, schema: v.GenericSchema<unknown, T>, entity: string): T | undefined => {
    const item = items[name];
    return item ? parseItem(schema, entity, item) : undefined;
  };
  const registry = extensionItems.length > 0 ? await registryFromExtensionItems(domainName, extensionItems) : undefined;
  return {
    ...(registry ? { registry } : {}),
    ...optional('customer', parsed('customer', CustomerRecord, 'customer')),
    contacts: new Map(handles.map((h, i) => [h, parsed(`contact${i}`, ContactRecord, 'contact')])),
    ...optional('template', parsed('template', TemplateRecord, 'template')),
    ...optional('domain', parsed('domain', DomainRecord, 'domain')),
    ...optional('zone', items.zone ? parseZoneHead(items.zone).zone : undefined),
    ...optional('lock', parsed('lock', TransferLock, lockEntity)),
    processCounter: counterValue(items.counter),
    zoneCounter: counterValue(items.zoneCounter),
  };
}

function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };
}

function lockCondition(lock: TransferLock) {
  return {
    ConditionExpression: 'processId = :id AND version = :version',
    ExpressionAttributeValues: { ':id': lock.processId, ':version': lock.version },
  };
}

/**
 * Records a later move of a running transfer (a registry answer the poller applied, a cancellation,
 * a resent FOA), guarded by the pending state's version as read (`previous`): while still waiting,
 * the process and the next pending state; when it ends, the process, the release of the name, and
 * on completion the domain in the account and its zone. False when another worker moved or ended
 * the transfer first.
 */
export async function recordTransferMove(move: TransferMove, previous: TransferLock, commitment?: Commitment): Promise<boolean> {
  // The process's counts move from what the pending state says it was (a transfer's detail status is its transfer status).
  const counts = changedProcessItems(countedBefore(move.process, previous), move.process);
  // The outbox: the move's notification, if its status changed, commits with it (after every other item).
  const notified = notificationWrites(transferNotification(move.process, previous.status));
  if (move.lock) return guarded([...waitingItems(move.process, previous, move.lock), ...itemsOf(commitment), ...counts, ...notified]);
  const zone = zoneWrite();
  await zone.stage(move.zone);
  try {
    const recorded = await guarded([...finalItems(move, previous, zone), ...itemsOf(commitment), ...counts, ...notified]);
    if (!recorded) await zone.discardIfCancelled(undefined);
    return recorded;
  } catch (error) {
    await zone.discardIfCancelled(error);
    throw error;
  }
}

/** What a transfer's process counted as while it was in the pending state `previous`. */
function countedBefore(process: ProcessRecord, previous: TransferLock): Counted {
  const { id, customer, type, action } = process;
  return { id, customer, type, action, status: processStatusOf(previous.status), detail: previous.status };
}

/** Moves a running transfer on (still waiting): the process and the pending state. */
function waitingItems(process: ProcessRecord, previous: TransferLock, next: TransferLock): TransactItem[] {
  return [
    putExisting(processItem(process)),
    // The sort key of the due index moves with actionDate, so the pending state is replaced whole.
    { Put: { TableName: tableName(), Item: lockItem(next), ...lockCondition(previous) } },
  ];
}

/** Ends a transfer: the process, the release of the name, and on completion the domain in the account and its zone. */
function finalItems({ process, domain, zone }: TransferMove, previous: TransferLock, write: ZoneWrite): TransactItem[] {
  const items: TransactItem[] = [
    putExisting(processItem(process)),
    { Delete: { TableName: tableName(), Key: keys.domainTransferByName(previous.domainName), ...lockCondition(previous) } },
  ];
  if (domain) items.push(putNew(domainItem(domain)), ...statusItems(domain));
  if (zone) items.push(write.item(zone), ...write.alongItems(zone));
  return items;
}

/**
 * A completion's zone write: a new zone's records are staged first (items no header names yet),
 * and the transaction creates its header only if the name has no zone, which makes them the
 * zone's; a conversion only marks the header managed, while the zone is still the account's.
 */
/** Errors with which DynamoDB refuses a request without carrying it out. */
const refusedNames = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ValidationException',
]);

export interface ZoneWrite {
  stage(effect: ZoneEffect | undefined): Promise<void>;
  item(effect: ZoneEffect): TransactItem;
  /** Items without a condition that go along: a new PREMIUM zone's due entry (zone-premium.ts), after every item whose position is read. */
  alongItems(effect: ZoneEffect): TransactItem[];
  /**
   * Removes the staged records once the transaction is known not to have happened (`error` a
   * cancellation or a refusal such as throttling, or undefined for one already known). After a
   * time-out or a server error it may have committed, so they stay: no header names them, so no
   * reader sees them, and the zone's next write removes them.
   */
  discardIfCancelled(error: unknown): Promise<void>;
}

export function zoneWrite(): ZoneWrite {
  let staged: StagedRecords | undefined;
  return {
    // The records are the same whatever ids the transaction claims, so a retry reuses them.
    async stage(effect) {
      if (effect?.create && !staged) staged = await stageRecords(effect.record, effect.record.records);
    },
    item(effect) {
      if (!effect.create) {
        const { domainName, customer, service, paidUntil } = effect.record;
        // Only a zone the conversion makes PREMIUM has its service and paid-until time written (never a stale read's).
        const zone = effect.premium ? { domainName, customer, service, paidUntil } : { domainName, customer };
        return convertZoneItem(zone, effect.record.updatedDate ?? effect.record.createdDate);
      }
      if (!staged) throw new Error(`The records of the new zone of ${effect.record.domainName} were not staged`);
      const { records: _, ...header } = effect.record;
      return newZoneItem(header, staged);
    },
    alongItems(effect) {
      return effect.create || effect.premium ? zoneDueItems(effect.record) : [];
    },
    async discardIfCancelled(error) {
      if (error !== undefined && cancellationCodes(error) === undefined && !refusedNames.has((error as Error)?.name)) return;
      await discardStaged(staged);
      staged = undefined;
    },
  };
}

/** A transaction whose failed second item (the pending-state guard) means "someone else was first". */
async function guarded(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

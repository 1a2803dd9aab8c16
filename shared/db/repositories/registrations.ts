import { registrationNotification } from '../../model/notification.ts';
import { RegistrationLock, type RegistrationMove, type RegistrationStatus } from '../../model/registration.ts';
import { getItem, listGsi1Range, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, checkAbsent, putExisting, putNew, type TransactItem, transact, transactWithIds } from '../transactions.ts';
import { type Commitment, itemsOf } from './commit-with.ts';
import { domainItem, statusItems } from './domains.ts';
import { notificationWrites } from './notifications.ts';
import { changedProcessItems, newProcessItems, processItem } from './processes.ts';
import { zoneWrite } from './transfers.ts';

/**
 * A registration's items and transactions. A registration the registry completes at once is one
 * transaction: its process, the domain (a conditional put: one account per name), its status
 * listing and counts, its zone, its notification. One the registry keeps pending adds the name's
 * pending state (`DOMAIN#<name>` / `REGISTER`, one per name), listed by due time for the poller;
 * every later move is one transaction guarded by that item's version.
 */

const lockEntity = 'domainRegistration';

function lockItem(lock: RegistrationLock): Record<string, unknown> {
  return toItem(keys.domainRegistration(lock.domainName, lock.actionDate), lockEntity, lock);
}

/** Puts a name's pending registration as it is (dataset import: restores a registration the registry keeps pending). */
export function putRegistrationLock(lock: RegistrationLock, ifAbsent = false): Promise<boolean> {
  return putItem(lockItem(lock), ifAbsent);
}

/** Why a new registration could not be recorded: a registration or transfer runs for the name, an account holds it, or its zone changed. */
export type RegistrationConflict = 'pending' | 'held' | 'zone';

/**
 * The items of a new registration with the registry's first answer: the process; the pending
 * state, or the check that none exists (item 1); the domain, or the check that no account holds
 * it (item 2); the check that no transfer runs for the name (item 3); the zone (item 4); then the
 * status listing and the process's listing and counts, which have no condition.
 */
function firstItems(move: RegistrationMove, zone: ReturnType<typeof zoneWrite>): TransactItem[] {
  const domainName = String(move.process.identifier);
  const items: TransactItem[] = [
    putNew(processItem(move.process)),
    move.lock ? putNew(lockItem(move.lock)) : checkAbsent(keys.domainRegistrationByName(domainName)),
    move.domain ? putNew(domainItem(move.domain)) : checkAbsent(keys.domainByName(domainName)),
    checkAbsent(keys.domainTransferByName(domainName)),
  ];
  if (move.zone) items.push(zone.item(move.zone));
  if (move.domain) items.push(...statusItems(move.domain));
  items.push(...newProcessItems(move.process));
  if (move.zone) items.push(...zone.alongItems(move.zone));
  return items;
}

function conflictOf(error: unknown, move: RegistrationMove | undefined): RegistrationConflict | undefined {
  const codes = cancellationCodes(error);
  if (codes?.[1] === 'ConditionalCheckFailed' || codes?.[3] === 'ConditionalCheckFailed') return 'pending';
  if (codes?.[2] === 'ConditionalCheckFailed') return 'held';
  if (move?.zone && codes?.[4] === 'ConditionalCheckFailed') return 'zone';
  return undefined;
}

/**
 * Records a new registration, which the registry has already taken, in one transaction with the
 * ids it claims (the process's, and a zone's when it creates one) and what is committed with it.
 * Answers the move as written, or the conflict (nothing written).
 */
export async function recordNewRegistration(
  counters: { process: number; zone?: number },
  build: (ids: { process: number; zone?: number }) => RegistrationMove,
  commitWith?: (move: RegistrationMove) => Commitment,
): Promise<{ move: RegistrationMove } | { conflict: RegistrationConflict }> {
  const current = Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== undefined)) as Record<string, number>;
  let move: RegistrationMove | undefined;
  const zone = zoneWrite();
  try {
    await transactWithIds(current, async (ids) => {
      move = build({ process: ids.process as number, ...(ids.zone !== undefined ? { zone: ids.zone } : {}) });
      await zone.stage(move.zone);
      return [
        ...firstItems(move, zone),
        ...itemsOf(commitWith?.(move)),
        ...notificationWrites(registrationNotification(move.process, undefined)),
      ];
    });
  } catch (error) {
    await zone.discardIfCancelled(error);
    const conflict = conflictOf(error, move);
    if (conflict) return { conflict };
    throw error;
  }
  return { move: move as RegistrationMove };
}

/** Pending registrations due at or before `at`, oldest first (one gsi1 Query page of at most `limit`). */
export function listDueRegistrations(at: string, limit = 100): Promise<RegistrationLock[]> {
  return listGsi1Range(keys.registrationsDue(at), limit, RegistrationLock, lockEntity);
}

/** A name's pending registration, if any. */
export function getRegistrationLock(domainName: string): Promise<RegistrationLock | undefined> {
  return getItem(keys.domainRegistrationByName(domainName), RegistrationLock, lockEntity);
}

function lockCondition(lock: RegistrationLock) {
  return {
    ConditionExpression: 'processId = :id AND version = :version',
    ExpressionAttributeValues: { ':id': lock.processId, ':version': lock.version },
  };
}

/**
 * Records a later move of a pending registration, guarded by the pending state as read
 * (`previous`): still pending, the process and the next pending state; ended, the process, the
 * release of the name, and on completion the domain, its status listing and its zone. False when
 * another worker moved it first (nothing written).
 */
export async function recordRegistrationMove(
  move: RegistrationMove,
  previous: RegistrationLock,
  before: RegistrationStatus,
): Promise<boolean> {
  const { process } = move;
  const counts = changedProcessItems(
    { id: process.id, customer: process.customer, type: process.type, action: process.action, status: 'RUNNING' },
    process,
  );
  const notified = notificationWrites(registrationNotification(process, before));
  const zone = zoneWrite();
  const items: TransactItem[] = [putExisting(processItem(process))];
  if (move.lock) {
    items.push({ Put: { TableName: tableName(), Item: lockItem(move.lock), ...lockCondition(previous) } });
  } else {
    items.push({ Delete: { TableName: tableName(), Key: keys.domainRegistrationByName(previous.domainName), ...lockCondition(previous) } });
    if (move.domain) items.push(putNew(domainItem(move.domain)), ...statusItems(move.domain));
    await zone.stage(move.zone);
    if (move.zone) items.push(zone.item(move.zone), ...zone.alongItems(move.zone));
  }
  try {
    await transact([...items, ...counts, ...notified]);
    return true;
  } catch (error) {
    await zone.discardIfCancelled(error);
    if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

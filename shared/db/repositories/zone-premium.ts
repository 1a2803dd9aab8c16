import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { NotificationRecord } from '../../model/notification.ts';
import type { ProcessRecord } from '../../model/process.ts';
import type { ZoneHeader } from '../../model/zone.ts';
import { db } from '../client.ts';
import { pageGsi1Range, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, putNew, type TransactItem, transact } from '../transactions.ts';
import { notificationWrites } from './notifications.ts';
import { newProcessItems, processItem } from './processes.ts';
import type { ZoneHead } from './zones.ts';

/**
 * The years of PREMIUM zones (shared/dns/premium-renewal.ts; docs/zones-api.md, "Charging PREMIUM
 * zones"): a PREMIUM zone's header carries its `paidUntil`, and an entry in the due listing
 * (keys.zoneDue: one gsi1 partition by that time, across customers) tells the expiry job when its
 * next year is charged. The entry is put with every write that sets a `paidUntil` (a new PREMIUM
 * zone, a move to PREMIUM, a charged year, an admin load, the migration); a zone that is deleted
 * or made BASIC leaves its entry, which the job removes when it finds the zone so (the job always
 * reads the zone itself: an entry only says when to look).
 */

export const zoneDueEntity = 'zoneDue';
export const zonePremiumChargeEntity = 'zonePremiumCharge';

const ZoneDue = v.object({ domainName: v.string(), dueDate: v.string() });
export type ZoneDue = v.InferOutput<typeof ZoneDue>;

/** The due entry of a zone at its `paidUntil`. */
function duePut(domainName: string, dueDate: string): TransactItem {
  return { Put: { TableName: tableName(), Item: toItem(keys.zoneDue(domainName, dueDate), zoneDueEntity, { domainName, dueDate }) } };
}

/** The due entry a write of this zone header puts along (none for a BASIC zone, or one without a paid-until time). */
export function zoneDueItems(zone: Pick<ZoneHeader, 'domainName' | 'service' | 'paidUntil'>): TransactItem[] {
  if (zone.service !== 'PREMIUM' || zone.paidUntil === undefined) return [];
  return [duePut(zone.domainName, zone.paidUntil)];
}

/** Puts a zone's due entry alone (a whole zone written outside a transaction: an admin load). */
export async function putZoneDue(zone: Pick<ZoneHeader, 'domainName' | 'service' | 'paidUntil'>): Promise<void> {
  const [item] = zoneDueItems(zone);
  if (item?.Put) await db().send(new PutCommand(item.Put));
}

/**
 * The zones due at or before `at` (any customer), earliest first: one gsi1 Query page of at most
 * `limit` entries, from `start` (the page before's `next`).
 */
export async function listDueZones(
  at: string,
  limit: number,
  start?: Record<string, unknown>,
): Promise<{ due: ZoneDue[]; next?: Record<string, unknown> }> {
  const { items, next } = await pageGsi1Range(keys.zonesDue(at), limit, ZoneDue, zoneDueEntity, start);
  return { due: items, ...(next ? { next } : {}) };
}

/**
 * A due entry that no longer tells the truth (its zone is gone, BASIC, or paid further): put at
 * `next` (the zone's paid-until time), or removed (`next` undefined), only while it is still the
 * entry read (`was`), so an entry a writer put meanwhile stays.
 */
export async function settleZoneDue(domainName: string, was: string, next: string | undefined): Promise<void> {
  const condition = { ConditionExpression: 'dueDate = :was', ExpressionAttributeValues: { ':was': was } };
  try {
    if (next === undefined) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.zoneDueByName(domainName), ...condition }));
    } else {
      const { Put } = duePut(domainName, next);
      await db().send(new PutCommand({ ...(Put as NonNullable<typeof Put>), ...condition }));
    }
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** The condition of a change of a PREMIUM zone's year: still this customer's PREMIUM zone, at the paid-until time read. */
function overPaidUntil(head: ZoneHead) {
  return {
    ConditionExpression: 'customer = :customer AND service = :premium AND paidUntil = :was',
    values: { ':customer': head.zone.customer, ':premium': 'PREMIUM', ':was': head.zone.paidUntil },
  };
}

/** Whether a transaction was cancelled by the condition of one of its first `n` items (the zone changed, or the year was charged). */
function lostRace(error: unknown, n: number): boolean {
  return cancellationCodes(error)?.slice(0, n).includes('ConditionalCheckFailed') === true;
}

/**
 * Records a PREMIUM zone's yearly charge in one transaction: the header's `paidUntil` moved to
 * `paidUntil` (its revision raised, so a write over the header as read before fails and reads it
 * again), the year's charge mark (`keys.zonePremiumCharge`: put only if absent, so a year is
 * charged once whatever retries happen), the due entry moved, the process carrying the billables
 * with its listings and counts, and its notification. False when the zone changed meanwhile or the
 * year was charged already (nothing written).
 */
export async function recordZoneYearCharged(
  head: ZoneHead,
  paidUntil: string,
  process: ProcessRecord,
  notification: NotificationRecord,
): Promise<boolean> {
  const { zone } = head;
  if (zone.paidUntil === undefined) throw new Error(`The zone ${zone.domainName} has no paid-until time to move on`);
  const condition = overPaidUntil(head);
  try {
    await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.zoneByName(zone.domainName),
          UpdateExpression: 'SET paidUntil = :next ADD revision :one',
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeValues: { ...condition.values, ':next': paidUntil, ':one': 1 },
        },
      },
      putNew(
        toItem(keys.zonePremiumCharge(zone.id, zone.paidUntil), zonePremiumChargeEntity, {
          zoneId: zone.id,
          domainName: zone.domainName,
          customer: zone.customer,
          periodStart: zone.paidUntil,
          paidUntil,
          processId: process.id,
        }),
      ),
      duePut(zone.domainName, paidUntil),
      putNew(processItem(process)),
      ...newProcessItems(process),
      ...notificationWrites(notification),
    ]);
    return true;
  } catch (error) {
    if (lostRace(error, 2)) return false;
    throw error;
  }
}

/**
 * Records the end of a PREMIUM zone's paid years (its year could not be charged) in one
 * transaction: the zone made BASIC (served on BASIC's name servers: a change that reaches DNS, so
 * its SOA serial is `change.serial` and its revision raised), its `paidUntil` and due entry
 * removed, the process and its notification. False when the zone changed meanwhile.
 */
export async function recordZonePremiumEnded(
  head: ZoneHead,
  change: { at: string; serial: number },
  process: ProcessRecord,
  notification: NotificationRecord,
): Promise<boolean> {
  const { zone } = head;
  const condition = overPaidUntil(head);
  try {
    await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.zoneByName(zone.domainName),
          UpdateExpression: 'SET service = :basic, updatedDate = :now, serial = :serial REMOVE paidUntil ADD revision :one',
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeValues: { ...condition.values, ':basic': 'BASIC', ':now': change.at, ':serial': change.serial, ':one': 1 },
        },
      },
      { Delete: { TableName: tableName(), Key: keys.zoneDueByName(zone.domainName) } },
      putNew(processItem(process)),
      ...newProcessItems(process),
      ...notificationWrites(notification),
    ]);
    return true;
  } catch (error) {
    if (lostRace(error, 1)) return false;
    throw error;
  }
}

/**
 * Gives a PREMIUM zone stored without a paid-until time (written before zones' years were charged)
 * its `paidUntil` and due entry, in one transaction, only while it is still PREMIUM without one at
 * the revision read (its revision raised). False when it changed meanwhile (`npm run admin -- migrate`).
 */
export async function placeZonePaidUntil(head: ZoneHead, paidUntil: string): Promise<boolean> {
  const { zone } = head;
  try {
    await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.zoneByName(zone.domainName),
          UpdateExpression: 'SET paidUntil = :until ADD revision :one',
          ConditionExpression: 'service = :premium AND revision = :revision AND attribute_not_exists(paidUntil)',
          ExpressionAttributeValues: { ':until': paidUntil, ':premium': 'PREMIUM', ':revision': head.revision, ':one': 1 },
        },
      },
      duePut(zone.domainName, paidUntil),
    ]);
    return true;
  } catch (error) {
    if (lostRace(error, 1)) return false;
    throw error;
  }
}

/**
 * Puts the due entry of a PREMIUM zone that has a paid-until time but no entry at it (a table
 * written before the listing, or a write that lost its entry), while the zone is still at that
 * time. False when it changed meanwhile.
 */
export async function placeZoneDue(head: ZoneHead): Promise<boolean> {
  const { zone } = head;
  if (zone.paidUntil === undefined) return false;
  const condition = overPaidUntil(head);
  try {
    await transact([
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.zoneByName(zone.domainName),
          ConditionExpression: condition.ConditionExpression,
          ExpressionAttributeValues: condition.values,
        },
      },
      duePut(zone.domainName, zone.paidUntil),
    ]);
    return true;
  } catch (error) {
    if (lostRace(error, 1)) return false;
    throw error;
  }
}

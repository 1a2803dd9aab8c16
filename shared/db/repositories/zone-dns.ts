import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationRecord } from '../../model/notification.ts';
import { ZoneDnsState } from '../../model/zone-dns.ts';
import { db } from '../client.ts';
import { getItem, listByGsi1 } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { conditionalUpdate } from '../transactions.ts';
import { notificationWrites } from './notifications.ts';

/**
 * Where each managed zone stands with the DNS provider (shared/model/zone-dns.ts): one item per
 * zone in its domain's collection, written only by the zone sync (shared/dns/sync.ts). Every write
 * is conditional on the revision: a push of an older revision than the one recorded served never
 * overwrites it, so pushes that arrive out of order or twice leave the newest standing.
 */

/** Its entity (zones.ts reads the item with the zone, under the same name). */
export const zoneDnsEntity = 'zoneDns';

/** The zone's standing with the provider; undefined before its first push. Strongly consistent (a conditional write follows). */
export function getZoneDnsState(domainName: string): Promise<ZoneDnsState | undefined> {
  return getItem(keys.zoneDnsByName(domainName), ZoneDnsState, zoneDnsEntity, true);
}

/** Every zone the sync has pushed (or tried to), for the reconcile job: one paged gsi1 Query. */
export function listZoneDnsStates(): Promise<ZoneDnsState[]> {
  return listByGsi1(keys.zoneDnsListing().gsi1pk, ZoneDnsState, zoneDnsEntity);
}

/** Only a revision newer than the one served may be recorded (or any, before the first push). */
const newerThanServed = 'attribute_not_exists(servedRevision) OR servedRevision < :revision';

function identity(domainName: string, customer: string, provider: string, zoneId: number) {
  const { gsi1pk, gsi1sk } = keys.zoneDns(domainName);
  // Its places beside the zone's header (gsi3 by name, gsi2 by id), where the zone GETs read it with the zone.
  const { gsi2pk, gsi2sk, gsi3pk } = keys.ownedZoneDns({ domainName, customer, id: zoneId });
  return {
    ':entity': zoneDnsEntity,
    ':domainName': domainName,
    ':customer': customer,
    ':provider': provider,
    ':gsi1pk': gsi1pk,
    ':gsi1sk': gsi1sk,
    ':gsi2pk': gsi2pk,
    ':gsi2sk': gsi2sk,
    ':gsi3pk': gsi3pk,
  };
}
const setIdentity =
  'entity = :entity, domainName = :domainName, customer = :customer, provider = :provider, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk, gsi3pk = :gsi3pk';

export interface ZonePushed {
  domainName: string;
  customer: string;
  /** The zone's id (its items' partition by id in gsi2). */
  zoneId: number;
  provider: string;
  revision: number;
  ds: string[];
  /** The DNSKEY records of the signing key, where the provider tells them. */
  dnskeys?: string[];
  now: string;
  /** The customer's notification of what this push did (a key rollover's new key served), in the same transaction. */
  notification?: NotificationRecord;
}

/**
 * Records that the provider serves this revision of the zone. False when a revision as new or newer
 * was recorded already (this push was stale or a replay).
 */
export function recordZoneServed(p: ZonePushed): Promise<boolean> {
  const update = {
    TableName: tableName(),
    Key: keys.zoneDnsByName(p.domainName),
    UpdateExpression: `SET ${setIdentity}, #status = :served, servedRevision = :revision, servedDate = :now, servedSince = if_not_exists(servedSince, :now), ds = :ds, dnskeys = :dnskeys REMOVE reason, failedRevision, failedSince, pendingChange`,
    ConditionExpression: newerThanServed,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ...identity(p.domainName, p.customer, p.provider, p.zoneId),
      ':served': 'served',
      ':revision': p.revision,
      ':now': p.now,
      ':ds': p.ds,
      ':dnskeys': p.dnskeys ?? [],
    },
  };
  return conditionalUpdate(update, notificationWrites(p.notification));
}

export interface ZonePushFailed {
  domainName: string;
  customer: string;
  /** The zone's id (its items' partition by id in gsi2). */
  zoneId: number;
  provider: string;
  revision: number;
  status: 'pending' | 'refused';
  reason: string;
  now: string;
  /** The provider's change that is not served yet, checked before the next push of the same revision. */
  pendingChange?: string;
  /** The customer's notification of the failure, written in the same transaction (the outbox). */
  notification?: NotificationRecord;
}

/**
 * Records that a push of this revision failed, and why (the failure's start is kept while the same
 * revision keeps failing), with the customer's notification when one is given. False when this
 * revision or a newer one is served already (and then no notification is written either).
 */
export async function recordZonePushFailed(p: ZonePushFailed): Promise<boolean> {
  const update = {
    TableName: tableName(),
    Key: keys.zoneDnsByName(p.domainName),
    UpdateExpression: `SET ${setIdentity}, #status = :status, reason = :reason, failedSince = if_not_exists(failedSince, :now), failedRevision = :revision${p.pendingChange ? ', pendingChange = :change' : ' REMOVE pendingChange'}`,
    ConditionExpression: newerThanServed,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ...identity(p.domainName, p.customer, p.provider, p.zoneId),
      ':status': p.status,
      ':reason': p.reason,
      ':revision': p.revision,
      ':now': p.now,
      ...(p.pendingChange ? { ':change': p.pendingChange } : {}),
    },
  };
  return conditionalUpdate(update, notificationWrites(p.notification));
}

/** Forgets the zone's standing: the provider no longer serves it (the zone was removed or is no longer managed). */
export async function removeZoneDnsState(domainName: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.zoneDnsByName(domainName) }));
}

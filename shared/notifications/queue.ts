import { readNotificationCounts } from '../db/repositories/notification-counts.ts';
import {
  acknowledgeNotification,
  getNotification,
  markNotificationRead,
  readOldestUnacknowledged,
} from '../db/repositories/notifications.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { NotificationRecord } from '../model/notification.ts';
import { now, toWireTime } from '../time.ts';
import { ownQueue } from './list.ts';
import type { NotificationPoll } from './notification-view.ts';

/**
 * The poll/ack queue of a customer's notifications (the real API's `get`, `poll` and `ack`), the
 * caller's own only: another customer's handle is refused before anything is read.
 */

const missing = (id: number) => new ObjectDoesNotExist('Notification', String(id));

/** One notification, marked read the first time it is read. */
export async function readNotification(caller: string, customer: string, id: number): Promise<NotificationRecord> {
  ownQueue(caller, customer);
  const read = await markNotificationRead(customer, id, toWireTime(now()));
  if (!read) throw missing(id);
  return read;
}

/** Acknowledges a notification (again: no change); it leaves the poll queue. */
export async function acknowledge(caller: string, customer: string, id: number): Promise<void> {
  ownQueue(caller, customer);
  if (!(await acknowledgeNotification(customer, id, toWireTime(now())))) throw missing(id);
}

/** How many of the index's first entries poll re-reads to skip ones just acknowledged (the index lags a moment). */
const pollWindow = 10;

/**
 * How many notifications wait unacknowledged, and the oldest of them: the same one until it is
 * acknowledged. A few reads whatever the size of the queue: the count from the customer's kept
 * counts (one BatchGet), the first entries of the queue's index (one Query), and the oldest re-read
 * by key, so one acknowledged a moment ago (the index may still hold it) is never answered again.
 */
export async function pollNotifications(caller: string, customer: string): Promise<NotificationPoll> {
  ownQueue(caller, customer);
  const [oldest, counts] = await Promise.all([readOldestUnacknowledged(customer, pollWindow), readNotificationCounts(customer)]);
  // The kept count moved with every acknowledgement already (its transaction): no entry skipped here is in it.
  for (const candidate of oldest) {
    const current = await getNotification(customer, candidate.id);
    if (current && current.acknowledgeDate === undefined) return { count: Math.max(1, counts.unacknowledged), notification: current };
  }
  // Nothing waits as far as the index tells (a short page, every entry acknowledged a moment ago).
  return { count: oldest.length < pollWindow ? 0 : counts.unacknowledged };
}

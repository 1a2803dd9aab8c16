import { countRemoval } from '../db/repositories/notification-counts.ts';
import { countedNotification, notificationFromStreamImage } from '../db/repositories/notifications.ts';

/** A deleted notification as the table's stream hands it over: its old image, and the record's id. */
export interface RemovedNotification {
  eventId: string;
  oldImage: Parameters<typeof notificationFromStreamImage>[0];
}

/**
 * Takes deleted notifications (the table's TTL at the end of their retention, or any other
 * deletion) from their customers' counts, in order: answers the index of the first it could not
 * take (it and the rest are handed over again), or undefined. A record handed over twice is not
 * counted twice within DynamoDB's 10-minute idempotency window (the record's id is the token);
 * the count repair mends anything later (shared/notifications/repair-counts.ts).
 */
export async function countRemovedNotifications(removed: readonly RemovedNotification[]): Promise<number | undefined> {
  for (const [index, r] of removed.entries()) {
    try {
      await countRemoval(countedNotification(notificationFromStreamImage(r.oldImage)), r.eventId);
    } catch {
      return index;
    }
  }
  return undefined;
}

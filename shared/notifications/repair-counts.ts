import {
  countNotificationsInto,
  emptyNotificationShardCounts,
  readNotificationCounts,
  writeNotificationCounts,
} from '../db/repositories/notification-counts.ts';
import { readNotificationsCounted } from '../db/repositories/notifications.ts';

/** What a repair of a customer's notification counts found and did. */
export interface NotificationCountRepair {
  customer: string;
  /** The counts before and after, where they differ (`all`, `unacknowledged`). */
  changed: Record<string, { before: number; after: number }>;
  notifications: number;
  rounds: number;
}

/**
 * Repairs a customer's notification counts (shared/db/repositories/notification-counts.ts) when
 * they drifted from the notifications: reads the shards' versions, then every notification's key
 * (the keys-only indexes: about 100 bytes an entry), and replaces each shard no write moved
 * meanwhile; a raced shard is counted again, up to `rounds` times. `npm run admin -- repair-counts`.
 */
export async function repairNotificationCounts(customer: string, rounds = 5): Promise<NotificationCountRepair> {
  for (let round = 1; round <= rounds; round++) {
    const before = await readNotificationCounts(customer, true);
    const shards = emptyNotificationShardCounts();
    const { counted } = await readNotificationsCounted(customer);
    countNotificationsInto(shards, counted);
    const raced = await writeNotificationCounts(customer, shards, before.versions);
    if (raced.length > 0) continue;
    const after = await readNotificationCounts(customer, true);
    const changed: NotificationCountRepair['changed'] = {};
    for (const name of ['all', 'unacknowledged'] as const) {
      if (before[name] !== after[name]) changed[name] = { before: before[name], after: after[name] };
    }
    return { customer, changed, notifications: counted.length, rounds: round };
  }
  throw new Error(`The notification counts of ${customer} kept changing during ${rounds} repairs; run the repair again`);
}

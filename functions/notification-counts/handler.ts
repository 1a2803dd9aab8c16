import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { countRemovedNotifications, type RemovedNotification } from '../../shared/notifications/removed.ts';

/**
 * Fed by the table's stream with the deletions of notifications (REMOVE: the table's TTL at the end
 * of a notification's retention): takes each from its customer's counts. Partial batch failures:
 * the first record it could not count is reported, and the stream hands it back with the rest.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = (event.Records ?? []).filter((r) => r.eventName === 'REMOVE' && r.dynamodb?.OldImage);
  const removed: RemovedNotification[] = records.map((r) => ({
    eventId: r.eventID ?? r.dynamodb?.SequenceNumber ?? '',
    oldImage: r.dynamodb?.OldImage as RemovedNotification['oldImage'],
  }));
  const failed = await countRemovedNotifications(removed);
  if (failed === undefined) return { batchItemFailures: [] };
  const first = records[failed];
  logger.warn('notification removal not counted yet', { consumer: 'notification-counts', sequenceNumber: first?.dynamodb?.SequenceNumber });
  return { batchItemFailures: [{ itemIdentifier: first?.dynamodb?.SequenceNumber ?? '' }] };
}

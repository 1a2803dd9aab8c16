import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { notificationFromStreamImage } from '../../shared/db/repositories/notifications.ts';
import { logger } from '../../shared/logger.ts';
import { deliverNew } from '../../shared/notifications/delivery.ts';

/**
 * The stream consumer delivering new notifications to webhooks (the fast path of
 * shared/notifications/delivery.ts). Only inserts matter (a notification marked read or
 * acknowledged is not news). A table failure fails the batch from its first record (the use case
 * is idempotent: a notification already delivered or queued is passed over).
 */
export async function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  const records = event.Records.filter((r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage);
  const notifications = records.map((r) =>
    notificationFromStreamImage(r.dynamodb?.NewImage as Parameters<typeof notificationFromStreamImage>[0]),
  );
  try {
    await deliverNew(notifications);
    return { batchItemFailures: [] };
  } catch (error) {
    logger.error('webhook delivery failed', { job: 'webhook-deliver', requestId: context?.awsRequestId, error: (error as Error).name });
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
}

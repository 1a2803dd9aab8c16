import type { Context, DynamoDBRecord, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { notificationFromStreamImage } from '../../shared/db/repositories/notifications.ts';
import { answerMarginMs } from '../../shared/http/function-budget.ts';
import { logger } from '../../shared/logger.ts';
import type { NotificationRecord } from '../../shared/model/notification.ts';
import { deliverNew } from '../../shared/notifications/delivery.ts';

/**
 * Delivers new notifications to webhooks (the fast path of shared/notifications/delivery.ts),
 * consuming the delivery queue: each message is a stream record of a notification written (the
 * pipe sends the record as the stream gives it; locally infra/local/streams.ts does the same),
 * grouped by customer. It reports partial batch failures: the messages of a customer whose delivery
 * could not be recorded, and a message that holds no notification, are received again (then
 * dead-lettered); every other message is done. Idempotent: a notification already delivered or
 * queued is passed over.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const unreadable: string[] = [];
  const received: { messageId: string; notification: NotificationRecord }[] = [];
  for (const message of event.Records) {
    try {
      const record = JSON.parse(message.body) as DynamoDBRecord;
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== 'INSERT' || !image) continue;
      received.push({
        messageId: message.messageId,
        notification: notificationFromStreamImage(image as Parameters<typeof notificationFromStreamImage>[0]),
      });
    } catch {
      unreadable.push(message.messageId);
    }
  }
  // The attempts and their recording end inside the invocation: what is left is queued for the retry lane.
  const until =
    typeof context?.getRemainingTimeInMillis === 'function' ? Date.now() + context.getRemainingTimeInMillis() - answerMarginMs : undefined;
  const failed = await deliverNew(
    received.map((r) => r.notification),
    until,
  );
  const batchItemFailures = [...unreadable, ...received.filter((r) => failed.has(r.notification.customer)).map((r) => r.messageId)].map(
    (itemIdentifier) => ({ itemIdentifier }),
  );
  if (batchItemFailures.length > 0) {
    logger.error('webhook delivery failed', {
      job: 'webhook-deliver',
      requestId: context?.awsRequestId,
      unreadable: unreadable.length,
      customers: failed.size,
      messages: batchItemFailures.length,
    });
  }
  return { batchItemFailures };
}

import type { Context, ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { deliverDue, type RetrySummary } from '../../shared/notifications/delivery.ts';
import { now } from '../../shared/time.ts';

/** The scheduled webhook retry lane: deliveries whose next attempt is due (shared/notifications/delivery.ts). */
export async function handler(event: ScheduledEvent, context: Context): Promise<RetrySummary> {
  const time = event?.time ? new Date(event.time) : now();
  const at = Number.isNaN(time.getTime()) ? now() : time;
  const summary = await deliverDue(at);
  if (summary.due > 0)
    logger.info('webhook retries', { job: 'webhook-retry', requestId: context?.awsRequestId, at: at.toISOString(), ...summary });
  return summary;
}

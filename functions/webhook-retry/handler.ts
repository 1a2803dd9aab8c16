import type { Context, ScheduledEvent } from 'aws-lambda';
import { answerMarginMs, functionTimeoutSeconds } from '../../shared/http/function-budget.ts';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { deliverDue, type RetrySummary } from '../../shared/notifications/delivery.ts';
import { now } from '../../shared/time.ts';

/**
 * The scheduled webhook retry lane: deliveries whose next attempt is due (shared/notifications/delivery.ts),
 * every attempt and its recording inside the invocation's time.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<RetrySummary> {
  const time = event?.time ? new Date(event.time) : now();
  const at = Number.isNaN(time.getTime()) ? now() : time;
  const summary = await deliverDue(at, deadlineOf(context));
  if (summary.due > 0)
    logger.info('webhook retries', { job: 'webhook-retry', requestId: context?.awsRequestId, at: at.toISOString(), ...summary });
  await jobRan('webhook-retry', summary);
  return summary;
}

/** When the invocation's work must be recorded by (epoch ms): its remaining time less what it keeps to return. */
export function deadlineOf(context: Context | undefined): number {
  const remaining =
    typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : functionTimeoutSeconds * 1000;
  return Date.now() + remaining - answerMarginMs;
}

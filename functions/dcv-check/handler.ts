import type { Context, ScheduledEvent } from 'aws-lambda';
import { type CheckReport, checkOpenRequests } from '../../shared/certificates/dcv-check.ts';
import { logger } from '../../shared/logger.ts';
import { now } from '../../shared/time.ts';

/** Scheduled (EventBridge): checks every open certificate request once and logs what happened. */
export async function handler(_event: ScheduledEvent, context: Context): Promise<CheckReport> {
  logger.addContext(context);
  const report = await checkOpenRequests(now());
  logger.info('dcv check run', { ...report });
  return report;
}

import type { Context, ScheduledEvent } from 'aws-lambda';
import { type CheckReport, checkOpenRequests } from '../../shared/certificates/dcv-check.ts';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { now } from '../../shared/time.ts';

/** Time kept back from the function's timeout: no step with an authority starts within it (a step's calls time out sooner). */
const reserveMs = 6_000;

/** Scheduled (EventBridge): checks every open certificate request once and logs what happened. */
export async function handler(_event: ScheduledEvent, context: Context): Promise<CheckReport> {
  logger.addContext(context);
  const remaining = typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  const report = await checkOpenRequests(now(), remaining === undefined ? undefined : Date.now() + Math.max(0, remaining - reserveMs));
  logger.info('dcv check run', { ...report });
  await jobRan('dcv-check', report);
  return report;
}

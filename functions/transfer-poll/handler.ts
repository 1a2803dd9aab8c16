import type { Context, ScheduledEvent } from 'aws-lambda';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { now } from '../../shared/time.ts';
import { type PollSummary, pollDueTransfers } from '../../shared/transfer/poll.ts';

/**
 * The scheduled transfer poller (contract section 6): applies the registry's answers to the
 * transfers whose actionDate has passed. The run's instant is the schedule's (`event.time`), so a
 * run is reproducible; without one, the clock.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<PollSummary> {
  const time = event?.time ? new Date(event.time) : now();
  const at = Number.isNaN(time.getTime()) ? now() : time;
  const summary = await pollDueTransfers(at);
  // Keys go on the line itself, not on the shared logger: under `npm start` all jobs share one process.
  if (summary.due > 0)
    logger.info('transfer poll', { job: 'transfer-poll', requestId: context?.awsRequestId, at: at.toISOString(), ...summary });
  await jobRan('transfer-poll', summary);
  return summary;
}

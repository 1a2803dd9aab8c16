import type { Context, ScheduledEvent } from 'aws-lambda';
import { pollDueRegistrations, type RegistrationPollSummary } from '../../shared/domains/registration-poll.ts';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { now } from '../../shared/time.ts';
import { type PollSummary, pollDueTransfers } from '../../shared/transfer/poll.ts';

/**
 * The scheduled transfer poller (contract section 6): applies the registry's answers to the
 * transfers whose actionDate has passed, and to pending registrations (shared/domains/registration-poll.ts). The run's instant is the schedule's (`event.time`), so a
 * run is reproducible; without one, the clock.
 */
export async function handler(event: ScheduledEvent, context: Context): Promise<PollSummary & { registrations?: RegistrationPollSummary }> {
  const time = event?.time ? new Date(event.time) : now();
  const at = Number.isNaN(time.getTime()) ? now() : time;
  const summary = await pollDueTransfers(at);
  // Keys go on the line itself, not on the shared logger: under `npm start` all jobs share one process.
  if (summary.due > 0)
    logger.info('transfer poll', { job: 'transfer-poll', requestId: context?.awsRequestId, at: at.toISOString(), ...summary });
  const registrations = await pollDueRegistrations(at);
  const busy = registrations.due > 0 || registrations.intents !== undefined;
  if (busy) {
    logger.info('registration poll', { job: 'transfer-poll', requestId: context?.awsRequestId, at: at.toISOString(), ...registrations });
  }
  const result = busy ? { ...summary, registrations } : summary;
  await jobRan('transfer-poll', result);
  return result;
}

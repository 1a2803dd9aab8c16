import type { Context, ScheduledEvent } from 'aws-lambda';
import { jobRan } from '../../shared/jobs/job-runs.ts';
import { logger } from '../../shared/logger.ts';
import { type CountRepairPass, repairCountsPass } from '../../shared/processes/repair-counts.ts';

/** Most processes one pass reads: `REPAIR_COUNTS_MAX_READ`, default 5,000 (about 6 MB of processes, a few seconds). */
function maxRead(): number {
  const value = Number(process.env.REPAIR_COUNTS_MAX_READ ?? 5_000);
  return Number.isInteger(value) && value > 0 ? value : 5_000;
}

/** What a pass keeps back of the function's time to write where it stands (ms). */
const marginMs = 3_000;
/** A pass's time without a Lambda context (a local run). */
const localBudgetMs = 7_000;

/**
 * The scheduled process-count repair (docs/processes.md): goes on through the customers from where
 * the last pass stopped, recounts their processes, and rewrites the counts that drifted; each pass
 * is bounded in processes read and in time.
 */
export async function handler(_event: ScheduledEvent, context: Context): Promise<CountRepairPass> {
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() - marginMs : localBudgetMs;
  const pass = await repairCountsPass({ maxRead: maxRead(), deadline: Date.now() + Math.max(remaining, 1_000) });
  if (pass.drifted.length > 0) logger.warn('process counts drifted', { job: 'repair-counts', requestId: context?.awsRequestId, ...pass });
  else if (pass.customers > 0) logger.info('process counts checked', { job: 'repair-counts', requestId: context?.awsRequestId, ...pass });
  await jobRan('repair-counts', pass);
  return pass;
}

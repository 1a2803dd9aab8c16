import { recordJobRun } from '../db/repositories/job-runs.ts';
import { logger } from '../logger.ts';

/**
 * A scheduled job's run, recorded when it finished without throwing (the health route reads it:
 * shared/health/health.ts), with the items its report says it could not handle (`failed`). A
 * failed write is logged and never fails the run: the job's own work is done.
 */
export async function jobRan(job: string, report: object): Promise<void> {
  const failed = 'failed' in report && typeof report.failed === 'number' ? report.failed : 0;
  try {
    await recordJobRun(job, new Date(), failed);
  } catch (error) {
    logger.warn('could not record the job run', { job, error: error as Error });
  }
}

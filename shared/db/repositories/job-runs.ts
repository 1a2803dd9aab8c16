import * as v from 'valibot';
import { WireTime } from '../../schemas/primitives.ts';
import { toWireTime } from '../../time.ts';
import { listPartition, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

/**
 * The last successful run of each scheduled job: written by the job at the end of a run that did
 * not throw (one PutItem), read by the health route (one Query of the one partition).
 */

const entity = 'jobRun';

export const JobRun = v.object({
  job: v.string(),
  /** When the run finished. */
  at: WireTime,
  /** Items the run could not handle (its report's `failed`), 0 when it reports none. */
  failed: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type JobRun = v.InferOutput<typeof JobRun>;

/** Records a run of `job` that finished at `at`. */
export async function recordJobRun(job: string, at: Date, failed = 0): Promise<void> {
  await putItem(toItem(keys.jobRun(job), entity, { job, at: toWireTime(at), failed }));
}

/** The last run of every job that ran. */
export function listJobRuns(): Promise<JobRun[]> {
  return listPartition(keys.jobRuns().pk, JobRun, entity);
}

import type { Context, ScheduledEvent } from 'aws-lambda';
import { withInvocationLogger } from '../../shared/logger.ts';
import { type Job, jobs } from '../../shared/routes.ts';
import { functionTimeoutFromEnv, lambdaContext } from './gateway.ts';

/**
 * Runs the scheduled functions of the route table on an interval, as EventBridge does for the
 * deployed stack, each within the deployed timeout as Lambda runs it (`runJob`). A failing run is
 * reported and the next one goes ahead.
 */
export function startJobs(log: (line: string) => void = console.log): () => Promise<void> {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  for (const job of jobs) {
    let running = false;
    const run = async () => {
      if (running || stopped) return;
      running = true;
      try {
        const outcome = await runJob(job.id);
        if ('timedOut' in outcome) log(`job ${job.id} ran past its ${outcome.timeoutMs} ms timeout`);
      } catch (error) {
        // A run cut short by the stop (the table going away under it) is no failure to report.
        if (!stopped) log(`job ${job.id} failed: ${(error as Error).message}`);
      } finally {
        running = false;
      }
    };
    timers.push(
      setInterval(() => {
        const started = run();
        inFlight.add(started);
        void started.finally(() => inFlight.delete(started));
      }, job.localIntervalSeconds * 1000),
    );
  }
  /** Stops the schedule and waits for the runs under way, so none meets a table that is gone (a stop prints no ECONNREFUSED). */
  return async () => {
    stopped = true;
    for (const t of timers) clearInterval(t);
    await Promise.allSettled([...inFlight]);
  };
}

/** What one run of a job came to: its result, or Lambda's timeout (the run is abandoned, its result dropped). */
export type JobOutcome = { result: unknown } | { timedOut: true; timeoutMs: number };

/**
 * One invocation of a scheduled function as Lambda makes it: a scheduled event (at `time`, default
 * now), a context whose remaining time counts down from the function's timeout (the stack's, or
 * LOCAL_FUNCTION_TIMEOUT_MS), and the timeout enforced: a run still going then is answered as
 * timed out, as Lambda stops it. The handler cannot be stopped in this process: whatever it does
 * after its timeout is what a killed invocation would have left undone, so a job must record its
 * work within its budget (shared/notifications/delivery.ts does).
 */
export async function runJob(id: string, options: { time?: Date; timeoutMs?: number } = {}): Promise<JobOutcome> {
  const job: Job | undefined = jobs.find((j) => j.id === id);
  if (!job) throw new Error(`no job ${id}`);
  const timeoutMs = options.timeoutMs ?? functionTimeoutFromEnv();
  const { handler } = (await import(`../../functions/${job.dir}/handler.ts`)) as {
    handler: (event: ScheduledEvent, context: Context) => Promise<unknown>;
  };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<JobOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true, timeoutMs }), timeoutMs);
  });
  try {
    const context = lambdaContext(job.id, crypto.randomUUID(), timeoutMs);
    const event = scheduledEvent(job.id, options.time ?? new Date());
    const run = withInvocationLogger(context, () => handler(event, context)).then((result): JobOutcome => ({ result }));
    return await Promise.race([run, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function scheduledEvent(id: string, time: Date): ScheduledEvent {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: time.toISOString(),
    region: 'local',
    resources: [`arn:aws:events:local:000000000000:rule/${id}`],
    detail: {},
  };
}

import type { Context, ScheduledEvent } from 'aws-lambda';
import { jobs } from '../../shared/routes.ts';

/**
 * Runs the scheduled functions of the route table on an interval, as EventBridge does for the
 * deployed stack. A failing run is reported and the next one goes ahead.
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
        const { handler } = (await import(`../../functions/${job.dir}/handler.ts`)) as {
          handler: (event: ScheduledEvent, context: Context) => Promise<unknown>;
        };
        await handler(scheduledEvent(job.id), { functionName: job.id, awsRequestId: crypto.randomUUID() } as Context);
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

function scheduledEvent(id: string): ScheduledEvent {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'local',
    resources: [`arn:aws:events:local:000000000000:rule/${id}`],
    detail: {},
  };
}

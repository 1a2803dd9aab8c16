import { type JobRun, listJobRuns } from '../db/repositories/job-runs.ts';
import { dnsImplementations, integrationSettings } from '../integrations.ts';
import { jobs } from '../routes.ts';
import type { HealthView } from './health-view.ts';

/**
 * The service's health (`GET /v2/health`, docs/operations in README "Health"): one Query of the
 * jobs' last runs (shared/db/repositories/job-runs.ts), nothing else, so an unauthenticated caller
 * polling it costs one read:
 * - the table is up when that Query answers;
 * - each scheduled job is up when its last successful run is within three of its intervals (plus a
 *   minute), pending when it has not run yet, down otherwise;
 * - DNS: the sandbox provider keeps the zones in memory (always up); a real provider is up when the
 *   last zone-reconcile run, which asks it about every zone, finished without a failed zone.
 */

/** The DNS provider the stage runs (the stack sets `DNS_PROVIDER`); read, never required: a health answer names a missing setting. */
function chosenDns(): string | undefined {
  const value = process.env[integrationSettings.dns]?.trim();
  return (dnsImplementations as readonly string[]).includes(value ?? '') ? value : undefined;
}

/** A schedule's interval in seconds: `rate(N unit)`, and a day for a cron expression (the daily jobs). */
export function scheduleSeconds(schedule: string): number {
  const rate = /^rate\((\d{1,6}) (minute|minutes|hour|hours|day|days)\)$/.exec(schedule);
  if (!rate) return 86_400;
  const unit = rate[2]?.startsWith('minute') ? 60 : rate[2]?.startsWith('hour') ? 3_600 : 86_400;
  return Number(rate[1]) * unit;
}

/** How long a job's next run may be awaited: three intervals and a minute. */
function dueWithin(schedule: string): number {
  return 3 * scheduleSeconds(schedule) + 60;
}

/** The service's health now. */
export async function health(now: Date): Promise<HealthView> {
  let runs: JobRun[];
  try {
    runs = await listJobRuns();
  } catch {
    return {
      status: 'DOWN',
      table: { status: 'DOWN' },
      dns: { status: 'PENDING', provider: chosenDns() ?? 'unset', detail: 'unknown: the table does not answer' },
      jobs: { status: 'PENDING', runs: [] },
    };
  }
  const last = new Map(runs.map((r) => [r.job, r]));
  const jobRuns = jobs.map((job) => {
    const run = last.get(job.id);
    const within = dueWithin(job.schedule);
    if (!run) return { job: job.id, status: 'PENDING' as const, dueWithinSeconds: within };
    const late = now.getTime() - Date.parse(run.at) > within * 1000;
    return { job: job.id, status: late ? ('DOWN' as const) : ('UP' as const), lastRun: run.at, dueWithinSeconds: within };
  });
  const jobsStatus = jobRuns.some((r) => r.status === 'DOWN') ? 'DOWN' : jobRuns.every((r) => r.status === 'PENDING') ? 'PENDING' : 'UP';
  const dns = dnsHealth(last.get('zone-reconcile'), jobRuns.find((r) => r.job === 'zone-reconcile')?.status ?? 'PENDING');
  return {
    status: jobsStatus === 'DOWN' || dns.status === 'DOWN' ? 'DEGRADED' : 'UP',
    table: { status: 'UP' },
    dns,
    jobs: { status: jobsStatus, runs: jobRuns },
  };
}

/** DNS as the last zone-reconcile run found it (the sandbox provider has nothing to reach). */
function dnsHealth(reconcile: JobRun | undefined, reconcileStatus: 'UP' | 'DOWN' | 'PENDING'): HealthView['dns'] {
  const provider = chosenDns();
  if (provider === undefined) {
    return {
      status: 'DOWN',
      provider: 'unset',
      detail: `${integrationSettings.dns} is not set to one of ${dnsImplementations.join(', ')}`,
    };
  }
  if (provider === 'sandbox') return { status: 'UP', provider, detail: 'zones kept in memory: no name server to reach' };
  if (!reconcile) return { status: 'PENDING', provider, detail: 'zone-reconcile has not run yet' };
  if (reconcile.failed > 0) {
    return {
      status: 'DOWN',
      provider,
      detail: `zone-reconcile at ${reconcile.at}: ${reconcile.failed} zone(s) failed at the provider`,
    };
  }
  if (reconcileStatus === 'DOWN') return { status: 'DOWN', provider, detail: `zone-reconcile last finished at ${reconcile.at}` };
  return { status: 'UP', provider, detail: `zone-reconcile at ${reconcile.at}: every zone answered` };
}

import { describe, expect, it, vi } from 'vitest';
import { handler as dcvCheck } from '../functions/dcv-check/handler.ts';
import { handler as webhookRetry } from '../functions/webhook-retry/handler.ts';
import { recordJobRun } from '../shared/db/repositories/job-runs.ts';
import { jobs } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { failCalls } from './support/sdk-calls.ts';

/** GET /v2/health through the local gateway, with no key: the table, DNS and the scheduled jobs. */

vi.hoisted(() => {
  process.env.DNS_PROVIDER = 'sandbox';
});

const scheduled = { time: new Date().toISOString() } as never;
const context = { functionName: 'job', awsRequestId: 'health-test', getRemainingTimeInMillis: () => 60_000 } as never;

describe('GET /v2/health', () => {
  it('answers without a key: the table up, the sandbox DNS up, every job pending until it has run', async () => {
    const res = await call('GET', '/v2/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.table).toEqual({ status: 'UP' });
    expect(res.body.dns).toMatchObject({ status: 'UP', provider: 'sandbox' });
    expect(res.body.jobs.runs.map((r: { job: string }) => r.job)).toEqual(jobs.map((j) => j.id));
    expect(res.body.jobs.status).toBe('PENDING');
    expect(res.body.status).toBe('UP');
  });

  it('shows a job up once it ran, and down (DEGRADED, still 200) once its last run is three intervals old', async () => {
    await dcvCheck(scheduled, context);
    await webhookRetry(scheduled, context);
    const res = await call('GET', '/v2/health', { key: null });
    const run = (job: string) => res.body.jobs.runs.find((r: { job: string }) => r.job === job);
    expect(run('dcv-check')).toMatchObject({ status: 'UP', lastRun: expect.any(String), dueWithinSeconds: 3 * 300 + 60 });
    expect(run('webhook-retry')).toMatchObject({ status: 'UP', dueWithinSeconds: 3 * 60 + 60 });
    expect(run('zone-reconcile')).toMatchObject({ status: 'PENDING' });
    expect(res.body.jobs.status).toBe('UP');
    expect(res.body.status).toBe('UP');
    // webhook-retry runs every minute: its last run four minutes ago is late.
    await recordJobRun('webhook-retry', new Date(Date.now() - 4 * 60_000));
    const late = await call('GET', '/v2/health', { key: null });
    expect(late.status).toBe(200);
    expect(late.body.jobs.runs.find((r: { job: string }) => r.job === 'webhook-retry').status).toBe('DOWN');
    expect(late.body.jobs.status).toBe('DOWN');
    expect(late.body.status).toBe('DEGRADED');
  });

  it('names a DNS provider that is not set as down', async () => {
    delete process.env.DNS_PROVIDER;
    try {
      const res = await call('GET', '/v2/health', { key: null });
      expect(res.status).toBe(200);
      expect(res.body.dns).toMatchObject({ status: 'DOWN', provider: 'unset' });
      expect(res.body.status).toBe('DEGRADED');
    } finally {
      process.env.DNS_PROVIDER = 'sandbox';
    }
  });

  it('answers 503 DOWN when the table does not answer', async () => {
    const restore = failCalls((command, partitions) => command === 'QueryCommand' && partitions.includes('JOBRUN'), 100);
    const res = await call('GET', '/v2/health', { key: null }).finally(restore);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'DOWN', table: { status: 'DOWN' } });
  });
});

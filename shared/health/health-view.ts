import * as v from 'valibot';

/** The health of one part: `UP`, `DOWN`, or `PENDING` (nothing to tell yet: a job that has not run since the table was made). */
export const PartStatus = v.picklist(['UP', 'DOWN', 'PENDING']);

/** `GET /v2/health`: the service as a script polling it sees it (shared/health/health.ts). */
export const HealthView = v.object({
  /** `UP` when every part is up or pending, `DEGRADED` when DNS or a job is down, `DOWN` when the table does not answer (503). */
  status: v.picklist(['UP', 'DEGRADED', 'DOWN']),
  table: v.object({ status: PartStatus }),
  dns: v.object({
    status: PartStatus,
    /** `DNS_PROVIDER`: `sandbox` (in memory: no name server, always up), `powerdns`, `route53`. */
    provider: v.string(),
    /** What the status rests on: for a real provider, the last zone-reconcile run. */
    detail: v.string(),
  }),
  jobs: v.object({
    status: PartStatus,
    runs: v.array(
      v.object({
        job: v.string(),
        status: PartStatus,
        /** When its last successful run finished; absent until it ran. */
        lastRun: v.optional(v.string()),
        /** Longest a run may be awaited before the job counts as down (seconds). */
        dueWithinSeconds: v.number(),
      }),
    ),
  }),
});
export type HealthView = v.InferOutput<typeof HealthView>;

/** An example answer, for the API description. */
export const healthExample: HealthView = {
  status: 'UP',
  table: { status: 'UP' },
  dns: { status: 'UP', provider: 'sandbox', detail: 'zones kept in memory: no name server to reach' },
  jobs: {
    status: 'UP',
    runs: [{ job: 'dcv-check', status: 'UP', lastRun: '2026-11-27T20:00:00Z', dueWithinSeconds: 960 }],
  },
};

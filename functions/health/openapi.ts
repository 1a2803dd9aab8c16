import { HealthView, healthExample } from '../../shared/health/health-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { HealthRequest } from './schema.ts';

/** GET /v2/health in the OpenAPI document. */
export const docs: OperationDocs = {
  request: HealthRequest,
  description:
    "Whether the service is up, for scripts and load balancers to poll: served without authentication, one read of the table, never cached. `table` is up when the table answers; each scheduled job is up when its last successful run is within three of its intervals and a minute (`PENDING` until its first run); `dns` is the DNS provider's state as the last zone-reconcile run found it (the sandbox provider, in memory, is always up). `status` is `UP`, `DEGRADED` (DNS or a job down: 200 still) or `DOWN` (the table does not answer: 503). Nothing in it names a customer or an object.",
  tags: ['Service'],
  responses: {
    '200': {
      description: 'The service answers: `status` UP or DEGRADED.',
      content: { 'application/json': { json: HealthView, examples: { up: healthExample } } },
    },
    '503': { description: 'The table does not answer: `status` DOWN.', content: { 'application/json': { json: HealthView } } },
  },
  errors: [],
  examples: {},
  auth: false,
  untagged: true,
};

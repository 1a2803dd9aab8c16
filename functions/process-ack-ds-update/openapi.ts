import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessView } from '../../shared/processes/process-view.ts';
import { AckDsUpdateRequest } from './schema.ts';

const idempotencyKey = {
  name: 'Idempotency-Key',
  description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
  example: '0e5b7c1d-2f4a-4b8e-9c3d-6a1f2e3b4c5d',
};

/** POST /v2/processes/{processId}/ack-ds-update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: AckDsUpdateRequest,
  description: [
    "Acknowledges that the parent publishes the new DS of a zone's key rollover (the SDKs' ackDSUpdate / ackDsUpdate): in one transaction the rollover's process completes and the zone's rollover moves on; within a second the DNS provider stops serving the old key. Answers the process, COMPLETED.",
    "Refused with 400 ObjectStatusProhibitsOperation: a process that is not a running key rollover, a zone that is gone or no longer signed, and a new key the DNS provider does not serve yet. Another customer's process answers like a missing one: 404.",
  ].join('\n\n'),
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'Acknowledged: the process as it ends.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ProcessView,
          examples: {
            rollover: {
              id: 1203,
              user: 'demo/alice',
              customer: 'demo',
              status: 'COMPLETED',
              resumeTypes: [],
              createdDate: '2026-03-02T10:00:00Z',
              updatedDate: '2026-03-03T09:12:40Z',
              startedDate: '2026-03-02T10:00:00Z',
              type: 'dnsZone',
              action: 'keyRollover',
              identifier: 'demo-secure.com',
              billables: [],
              command: { zoneId: 102 },
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKey],
  examples: { path: { processId: '501' } },
};

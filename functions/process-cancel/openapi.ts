import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessView } from '../../shared/processes/process-view.ts';
import { ProcessCancelRequest } from './schema.ts';

const idempotencyKey = {
  name: 'Idempotency-Key',
  description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
  example: '0e5b7c1d-2f4a-4b8e-9c3d-6a1f2e3b4c5d',
};

/** DELETE /v2/processes/{processId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessCancelRequest,
  description: [
    'Cancels a process of the caller where its `resumeTypes` include `CANCEL`.',
    "A waiting transfer is cancelled at the registry first (a transfer the registry has already completed, rejected or failed stays so: 400). Then, in one transaction: the transfer status becomes `cancelled`, the process `CANCELLED`, the domain's pending state is removed and the refundable billables are refunded on the process (`refund`).",
    'A certificate request still validating is withdrawn at the authority and, in one transaction, becomes `CANCELLED` (refunded, with a note), leaves the DCV check, lets its certificate be renewed again, and the DNS DCV records it added to your zones are removed.',
    'Racing the scheduled poller or DCV check, exactly one outcome holds. A completed, failed or cancelled process: 400 ObjectStatusProhibitsOperation. Answers the process as it ends.',
  ].join('\n\n'),
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'Cancelled: the process as it ends.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ProcessView,
          examples: {
            transfer: {
              id: 1001,
              user: 'demo/alice',
              customer: 'demo',
              status: 'CANCELLED',
              statusDetail: 'cancelled',
              resumeTypes: [],
              createdDate: '2026-11-21T21:03:29Z',
              updatedDate: '2026-11-21T21:10:02Z',
              startedDate: '2026-11-21T21:03:29Z',
              type: 'domain',
              action: 'transfer',
              identifier: 'transfer-wait.com',
              billables: [
                {
                  product: 'domain_com',
                  action: 'TRANSFER',
                  quantity: 1,
                  amount: 899,
                  providerName: 'verisign',
                  refundable: true,
                  total: 899,
                },
              ],
              command: { domainName: 'transfer-wait.com', customer: 'demo', registrant: 'demo-registrant' },
              refund: { EUR: 899 },
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKey],
  examples: { path: { processId: '501' } },
};

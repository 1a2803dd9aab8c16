import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { Billable } from '../../shared/model/quote.ts';
import { ProcessSelection, ProcessView, process501 } from '../../shared/processes/process-view.ts';
import { ProcessRequest } from './schema.ts';

/** GET /v2/processes/{processId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessRequest,
  description:
    "A process of the caller (contract section 5): `user` is `<customer>/<login>`; `statusDetail` says where a transfer stands or that a certificate request needs attention; `resumeTypes` says whether it can be cancelled (`CANCEL`, DELETE) or its e-mail resent (`RESEND`); `billables` what it charged, `refund` what an ended one refunded; `command` the request that started it, secrets left out. `fields` (repeated or comma-separated) limits the answer to those fields. Another customer's process answers 404 like a missing one.",
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'The process (only the fields asked for, with `fields`).',
      content: {
        'application/json': {
          json: ProcessSelection,
          examples: { certificateRequest: process501, someFields: { id: 501, status: 'RUNNING', resumeTypes: ['CANCEL'] } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { processId: '501' } },
  components: { Process: ProcessView, Billable },
};

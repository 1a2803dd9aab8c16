import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { cancelProcess } from '../../shared/processes/cancel.ts';
import { ProcessCancelRequest } from './schema.ts';

/** DELETE /v2/processes/{processId}: cancels a waiting transfer or a certificate request still validating; 200 with the process. */
export const handler = endpoint(
  { route: 'process-cancel', request: ProcessCancelRequest, idempotency: idempotency('cancel') },
  ({ input, principal }, commitWith) => cancelProcess(input.path.processId, principal.customer, commitWith),
);

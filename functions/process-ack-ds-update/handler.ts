import { acknowledgeDsUpdate } from '../../shared/dns/ack-ds-update.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { AckDsUpdateRequest } from './schema.ts';

/** POST /v2/processes/{processId}/ack-ds-update: a key rollover's DS is at the parent; 200 with the process, COMPLETED. */
export const handler = endpoint(
  { route: 'process-ack-ds-update', request: AckDsUpdateRequest, idempotency: idempotency('ack-ds-update') },
  ({ input, principal }, commitWith) => acknowledgeDsUpdate(principal, input.path.processId, commitWith),
);

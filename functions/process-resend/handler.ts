import { idempotency } from '../../shared/http/idempotency.ts';
import { optionalJsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { resendProcess } from '../../shared/processes/resend.ts';
import { ProcessResendRequest } from './schema.ts';

/** POST /v2/processes/{processId}/resend: resends the FOA or DCV e-mail a process waits on; 200 with the process. */
export const handler = endpoint(
  { route: 'process-resend', request: ProcessResendRequest, body: optionalJsonBody, idempotency: idempotency('resend') },
  ({ input, principal }, commitWith) => resendProcess(input.path.processId, principal.customer, commitWith, input.body.dcv),
);

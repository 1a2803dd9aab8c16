import { renewCertificate } from '../../shared/certificates/renew.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { RenewRequest } from './schema.ts';

/** POST /v2/ssl/certificates/{certificateId}/renew[?quote=true] (spec 4.2, contract 3.2): 202 with the process. */
export const handler = endpoint(
  {
    route: 'renew',
    request: RenewRequest,
    body: jsonBody,
    idempotency: idempotency('renew', (input: RenewRequest) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    renewCertificate(input.path.certificateId, input.body, principal, input.query.quote === true, commitWith),
  processAnswer(202),
);

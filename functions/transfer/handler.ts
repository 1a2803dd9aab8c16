import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { authorizeTransfer, transferDomain } from '../../shared/transfer/transfer.ts';
import { TransferRequest } from './schema.ts';

/** POST /v2/domains/{domainName}/transfer[?quote=true] (spec 4.1, contract 3.1): 200 once completed at once, else 202. */
export const handler = endpoint(
  {
    route: 'transfer',
    request: TransferRequest,
    body: jsonBody,
    authorize: ({ input, principal }) => authorizeTransfer({ body: input.body, principal }),
    idempotency: idempotency('transfer', (input: TransferRequest) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    transferDomain({ domainName: input.path.domainName, body: input.body, principal }, input.query.quote === true, commitWith),
  processAnswer(200),
);

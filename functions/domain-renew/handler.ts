import { renewDomain } from '../../shared/domains/renew.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DomainRenewRequest, type DomainRenewRequest as Request } from './schema.ts';

/** POST /v2/domains/{domainName}/renew[?quote=true]: 200 `{domainName, expiryDate}` with the process id in X-Process-Id; Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'domain-renew',
    request: DomainRenewRequest,
    body: jsonBody,
    idempotency: idempotency('domain-renew', (input: Request) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    renewDomain({ domainName: input.path.domainName, body: input.body, principal }, input.query.quote === true, commitWith),
  processAnswer(200),
);

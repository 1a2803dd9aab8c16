import { authorizeUpdate, updateDomain } from '../../shared/domains/update.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DomainUpdateRequest, type DomainUpdateRequest as Request } from './schema.ts';

/** POST /v2/domains/{domainName}/update[?quote=true]: 200 with the process id in X-Process-Id once applied; Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'domain-update',
    request: DomainUpdateRequest,
    body: jsonBody,
    authorize: ({ input, principal }) => authorizeUpdate({ body: input.body, principal }),
    idempotency: idempotency('domain-update', (input: Request) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    updateDomain({ domainName: input.path.domainName, body: input.body, principal }, input.query.quote === true, commitWith),
  processAnswer(200),
);

import { authorizeRegistration, registerDomain } from '../../shared/domains/register.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DomainRegisterRequest } from './schema.ts';

/** POST /v2/domains/{domainName}[?quote=true]: 201 when registered at once (with expiryDate), 202 while pending. */
export const handler = endpoint(
  {
    route: 'domain-register',
    request: DomainRegisterRequest,
    body: jsonBody,
    authorize: ({ input, principal }) => authorizeRegistration({ body: input.body, principal }),
    idempotency: idempotency('domain-register', (input: DomainRegisterRequest) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    registerDomain({ domainName: input.path.domainName, body: input.body, principal }, input.query.quote === true, commitWith),
  processAnswer(201),
);

import { restoreDomain } from '../../shared/domains/restore.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DomainRestoreRequest, type DomainRestoreRequest as Request } from './schema.ts';

/** POST /v2/domains/{domainName}/restore[?quote=true]: 200 `{domainName, expiryDate}` with the process id in X-Process-Id; Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'domain-restore',
    request: DomainRestoreRequest,
    body: jsonBody,
    idempotency: idempotency('domain-restore', (input: Request) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) =>
    restoreDomain({ domainName: input.path.domainName, body: input.body, principal }, input.query.quote === true, commitWith),
  processAnswer(200),
);

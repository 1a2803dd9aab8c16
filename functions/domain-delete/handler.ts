import { deleteDomain } from '../../shared/domains/delete.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DomainDeleteRequest } from './schema.ts';

/** DELETE /v2/domains/{domainName}: 200 `{domainName}` once in its redemption period, the process id in X-Process-Id; Idempotency-Key supported. */
export const handler = endpoint(
  { route: 'domain-delete', request: DomainDeleteRequest, idempotency: idempotency('domain-delete') },
  ({ input, principal }, commitWith) => deleteDomain({ domainName: input.path.domainName, principal }, commitWith),
  processAnswer(200),
);

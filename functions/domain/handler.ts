import { getDomain } from '../../shared/domains/get-domain.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { DomainRequest } from './schema.ts';

/** GET /v2/domains/{domainName}: a domain of the caller, `fields` repeated or comma-separated. */
export const handler = endpoint({ route: 'domain', request: DomainRequest, repeatedQuery: true }, ({ input, principal }) =>
  getDomain(principal.customer, input.path.domainName, input.query.fields),
);

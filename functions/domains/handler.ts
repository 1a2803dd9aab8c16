import { listDomains } from '../../shared/domains/list-domains.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { DomainListRequest } from './schema.ts';

/** GET /v2/domains: the caller's domains, a page at a time. */
export const handler = endpoint({ route: 'domains', request: DomainListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listDomains(principal.customer, input.query),
);

import * as v from 'valibot';
import { DomainFieldsQuery } from '../../shared/domains/list-request.ts';
import { DomainName } from '../../shared/schemas/primitives.ts';

/** GET /v2/domains/{domainName}[?fields=...]: the domain name, and the fields to answer. */
export const DomainRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: DomainFieldsQuery,
  body: v.undefined(),
});

import * as v from 'valibot';
import { UpdateBody } from '../../shared/domains/update-request.ts';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}/update[?quote=true]: the path, the quote flag and the body. */
export const DomainUpdateRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: UpdateBody,
});
export type DomainUpdateRequest = v.InferOutput<typeof DomainUpdateRequest>;

import * as v from 'valibot';
import { RenewBody } from '../../shared/domains/lifecycle-request.ts';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}/renew[?quote=true]: the path, the quote flag and the body. */
export const DomainRenewRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: RenewBody,
});
export type DomainRenewRequest = v.InferOutput<typeof DomainRenewRequest>;

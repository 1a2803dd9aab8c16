import * as v from 'valibot';
import { RestoreBody } from '../../shared/domains/lifecycle-request.ts';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}/restore[?quote=true]: the path, the quote flag and the body. */
export const DomainRestoreRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: RestoreBody,
});
export type DomainRestoreRequest = v.InferOutput<typeof DomainRestoreRequest>;

import * as v from 'valibot';
import { RegisterBody } from '../../shared/domains/register-request.ts';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}[?quote=true]: the path, the quote flag (the PHP client always sends it) and the body. */
export const DomainRegisterRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: RegisterBody,
});
export type DomainRegisterRequest = v.InferOutput<typeof DomainRegisterRequest>;

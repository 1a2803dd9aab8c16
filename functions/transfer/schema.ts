import * as v from 'valibot';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';
import { TransferBody } from '../../shared/transfer/request.ts';

/** POST /v2/domains/{domainName}/transfer[?quote=true]: the path, the quote flag and the body (spec 2.1, 4.1). */
export const TransferRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: TransferBody,
});
export type TransferRequest = v.InferOutput<typeof TransferRequest>;

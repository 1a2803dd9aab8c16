import * as v from 'valibot';
import { RenewBody } from '../../shared/certificates/renew-request.ts';
import { PathId, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/ssl/certificates/{certificateId}/renew[?quote=true]: the path, the quote flag and the body (spec 2.7, contract 3.2). */
export const RenewRequest = v.object({
  path: v.object({ certificateId: PathId }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: RenewBody,
});
export type RenewRequest = v.InferOutput<typeof RenewRequest>;

import * as v from 'valibot';
import { DcvRequest } from '../../shared/certificates/renew-request.ts';
import { bodyObject, listOf, PathId } from '../../shared/schemas/primitives.ts';

/**
 * POST /v2/processes/{processId}/resend: the process id; the body may be left out or be `{}`, or
 * carry the real API's resend-DCV list (`dcv: [{commonName, type, email?}]`, both SDKs' resendDcv).
 */
export const ProcessResendRequest = v.object({
  path: v.object({ processId: PathId }),
  query: v.object({}),
  body: bodyObject({ dcv: v.optional(listOf(DcvRequest, 250)) }),
});

import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/ssl/certificates/{certificateId}: the certificate id in the path (`fields` and other parameters are ignored: the whole certificate is answered). */
export const CertificateRequest = v.object({
  path: v.object({ certificateId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

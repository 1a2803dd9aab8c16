import { certificateDetails } from '../../shared/certificates/certificate-info.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { CertificateRequest } from './schema.ts';

/** GET /v2/ssl/certificates/{certificateId}: the caller's certificate (the SDKs' `ssl.get` / `getCertificate`). */
export const handler = endpoint({ route: 'certificate', request: CertificateRequest }, ({ input, principal }) =>
  certificateDetails(principal.customer, input.path.certificateId),
);

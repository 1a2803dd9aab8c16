import { listCertificates } from '../../shared/certificates/list-certificates.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { CertificateListRequest } from './schema.ts';

/** GET /v2/ssl/certificates: the caller's certificates, a page at a time (the SDKs' `ssl.list` / `listCertificates`). */
export const handler = endpoint({ route: 'certificates', request: CertificateListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listCertificates(principal.customer, input.query),
);

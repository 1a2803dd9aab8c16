import { CertificateView, certificate1001 } from '../../shared/certificates/certificate-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { CertificateRequest } from './schema.ts';

/** GET /v2/ssl/certificates/{certificateId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: CertificateRequest,
  description:
    "A certificate of the caller, as the official SDKs read it (`ssl.get`, `getCertificate`): product, validation and certificate type, `domainName`, `san`, dates, status, the key's algorithm and size, and, once the authority delivered it, the certificate itself (`certificate`, PEM) with its SHA-256 `fingerprint`, and the `csr` it was requested with. `process` is the process that issued it. Another customer's certificate answers 404 like a missing one.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'The certificate.',
      content: { 'application/json': { json: CertificateView, examples: { 'certificate 1001': certificate1001 } } },
    },
  },
  pathObject: true,
  errors: ['ObjectDoesNotExist'],
  examples: { path: { certificateId: '1001' } },
  components: { Certificate: CertificateView },
};

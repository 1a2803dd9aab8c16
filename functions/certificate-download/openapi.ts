import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { CertificateDownloadRequest } from './schema.ts';

/** GET /v2/ssl/certificates/{certificateId}/download in the OpenAPI document. */
export const docs: OperationDocs = {
  request: CertificateDownloadRequest,
  description:
    "A certificate of the caller as a file (`ssl.download`, `downloadCertificate`), `format` one of: `CRT` the certificate (PEM); `CA` its issuer's certificate (PEM); `CA_BUNDLE` every issuer certificate the authority delivered (PEM, issuer first); `PKCS7` the certificate and its chain as PKCS#7 (PEM `PKCS7`); `CSR` the CSR it was requested with (PEM); `ZIP` (default) the CRT, CA bundle, PKCS#7 and CSR files in one ZIP. `Content-Disposition` names the file after the common name. The sandbox authority delivers files too, signed by the sandbox's own CA (the CA_BUNDLE verifies the certificate; docs/certificates.md). A certificate loaded without a file offers only its CSR: 400 `ObjectStatusProhibitsOperation` otherwise. Another customer's certificate answers 404 like a missing one.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'The file.',
      headers: [{ name: 'Content-Disposition', required: true }],
      content: { 'application/octet-stream': { text: 'The file: PEM text, or the bytes of a ZIP file.' } },
    },
  },
  pathObject: true,
  errors: ['ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  examples: { path: { certificateId: '1001' }, query: { format: 'CRT' } },
};

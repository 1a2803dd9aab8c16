import { downloadCertificate } from '../../shared/certificates/download.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { okBytes } from '../../shared/http/response.ts';
import { CertificateDownloadRequest } from './schema.ts';

/** GET /v2/ssl/certificates/{certificateId}/download?format=...: the file, as bytes (the SDKs' `ssl.download` / `downloadCertificate`). */
export const handler = endpoint(
  { route: 'certificate-download', request: CertificateDownloadRequest },
  ({ input, principal }) => downloadCertificate(principal.customer, input.path.certificateId, input.query.format),
  (file) => okBytes(file.bytes, 'application/octet-stream', { 'Content-Disposition': `attachment; filename="${file.fileName}"` }),
);

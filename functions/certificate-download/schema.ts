import * as v from 'valibot';
import { downloadFormats } from '../../shared/certificates/certificate-view.ts';
import { PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/ssl/certificates/{certificateId}/download[?format=...]: the certificate id, and the format (ZIP when omitted). */
export const CertificateDownloadRequest = v.object({
  path: v.object({ certificateId: PathId }),
  query: v.object({
    format: v.optional(
      v.pipe(
        v.picklist(downloadFormats, `must be one of ${downloadFormats.join(', ')}`),
        v.description(`The file to download: ${downloadFormats.join(', ')} (default ZIP).`),
      ),
      'ZIP',
    ),
  }),
  body: v.undefined(),
});

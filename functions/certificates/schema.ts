import * as v from 'valibot';
import { CertificateListQuery } from '../../shared/certificates/list-request.ts';

/** GET /v2/ssl/certificates: paging, order, fields, total, q, export and filters, each parameter possibly repeated. */
export const CertificateListRequest = v.object({
  path: v.object({}),
  query: CertificateListQuery,
  body: v.undefined(),
});

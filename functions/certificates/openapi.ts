import { CertificatePage, CertificateView, certificate1001 } from '../../shared/certificates/certificate-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { CertificateListRequest } from './schema.ts';

/** GET /v2/ssl/certificates in the OpenAPI document. */
export const docs: OperationDocs = {
  request: CertificateListRequest,
  description: [
    "The caller's certificates, newest first (the SDKs' `ssl.list`, `listCertificates`; docs/certificates.md): `{entities, pagination: {limit, offset, total}}`, each certificate as `GET /v2/ssl/certificates/{certificateId}` answers it. Another customer's certificates are never listed.",
    'Paging: `limit` (default 10, at most 100; `0` answers only the count) and `offset` (at most 10000). `order`: `id` oldest first, `-id` newest first (the default). `fields` limits what each entity carries. `pagination.total` is counted unless `total=false`. `export=true` answers every match in one answer, with `id`, `domainName`, `product`, `status` and `expiryDate` unless `fields` names others; it refuses `limit` and `offset`.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`; a parameter may repeat, and every filter applies. Fields: `id`, `status`, `validationType`, `certificateType` (eq, ne, in, not_in), `domainName`, `san`, `product`, `serialNumber` (also like, not_like; `san` matches when any of the names does, its negations when none does), `organization`, `publicKeyAlgorithm` (also null, not_null), `startDate`, `expiryDate`, `subscriptionEndDate` (eq, ne, gt, gte, lt, lte, as a day `yyyy-MM-dd` or a time; `subscriptionEndDate` also null, not_null). `q` finds certificates whose domain name, names, product, organization or serial number contains the text (case-insensitive).',
    'Cost: the table is never scanned. Without filters a page skips its `offset` over a keys-only index and reads only its own certificates, and `total` counts keys (at most 100000). An exact `id` reads one certificate. Filters on `id` and `status` alone are checked on an index holding only those. Other filters and `q` read the certificates in order, at most 20000 and for at most 5 s; a broader request answers 400 ValidationError saying how to narrow it. An unknown parameter, filter field or matcher: 400 ConstraintViolationException naming it.',
  ].join('\n\n'),
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'One page of certificates.',
      content: {
        'application/json': {
          json: CertificatePage,
          examples: {
            active: { entities: [certificate1001], pagination: { limit: 1, offset: 2, total: 3 } },
            someFields: {
              entities: [
                { id: 1003, domainName: 'demo-secure.com' },
                { id: 1002, domainName: 'demo-shop.nl' },
              ],
              pagination: { limit: 2, offset: 0, total: 3 },
            },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { query: { status: ['ACTIVE'], 'domainName:like': ['*demo*'] } },
  components: { Certificate: CertificateView, CertificatePage },
};

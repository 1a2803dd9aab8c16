import { SslProduct } from '../../shared/certificates/product-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { cataloguePage } from '../../shared/schemas/listing.ts';
import { SslProductListRequest } from './schema.ts';

const example = {
  product: 'ssl_sectigo_dv',
  brand: 'Sectigo',
  name: 'Sectigo PositiveSSL',
  validationType: 'DOMAIN_VALIDATION',
  certificateType: 'SINGLE_DOMAIN',
  features: ['WWW_INCLUDED', 'NON_WWW_INCLUDED'],
  periods: [12, 24, 36],
  warranty: 10000,
  issueTime: '5 minutes',
  renewalWindow: 90,
  includedDomains: 1,
  maxDomains: 1,
  requiredFields: [],
  optionalFields: ['domainName'],
};

/** The example product of the SSL product routes (from the demo data). */
export { example as sslProductExample };

/** GET /v2/ssl/products in the OpenAPI document. */
export const docs: OperationDocs = {
  request: SslProductListRequest,
  description:
    "The SSL product catalogue (the SDKs' `listProducts`), a page at a time: `limit` (1 to 100, default 10), `offset`, `order` (`product` or `-product`), `q` (a case-insensitive search of product names, names and brands) and `total` (`pagination.total` is counted unless `total=false`). `requiredFields` and `optionalFields` say which renewal fields the product uses; `renewFrom` is left out, as any product may be renewed to any other. `warranty` and `issueTime` are shown where the catalogue holds them. Other listing parameters (filters, `fields`, `export`) are ignored.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'A page of SSL products.',
      content: {
        'application/json': {
          json: cataloguePage(SslProduct),
          examples: { page: { entities: [example], pagination: { limit: 1, offset: 0, total: 4 } } },
        },
      },
    },
  },
  errors: ['ConstraintViolationException'],
  examples: { query: { limit: '10', order: 'product' } },
  components: { SslProduct },
};

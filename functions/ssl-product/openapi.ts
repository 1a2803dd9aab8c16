import { SslProduct, SslProductSelection } from '../../shared/certificates/product-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { sslProductExample } from '../ssl-products/openapi.ts';
import { SslProductRequest } from './schema.ts';

/** GET /v2/ssl/products/{product} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: SslProductRequest,
  description:
    "One SSL product (the SDKs' `getProduct`), in the shape of the catalogue's entries. The name is case-insensitive; an unknown product answers 404. `fields` (repeated or comma-separated) limits the answer to those fields, as the other reads do; a field it does not have is a 400.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'The product (only the fields asked for, with `fields`).',
      content: {
        'application/json': {
          json: SslProductSelection,
          examples: { positiveSsl: sslProductExample, someFields: { product: 'ssl_sectigo_dv', periods: [12, 24, 36] } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { product: 'ssl_sectigo_dv' } },
  components: { SslProduct },
};

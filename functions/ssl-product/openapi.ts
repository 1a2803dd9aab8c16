import { SslProduct } from '../../shared/certificates/product-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { sslProductExample } from '../ssl-products/openapi.ts';
import { SslProductRequest } from './schema.ts';

/** GET /v2/ssl/products/{product} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: SslProductRequest,
  description:
    "One SSL product (the SDKs' `getProduct`), in the shape of the catalogue's entries. The name is case-insensitive; an unknown product answers 404.",
  tags: ['Certificates'],
  responses: {
    '200': {
      description: 'The product.',
      content: { 'application/json': { json: SslProduct, examples: { positiveSsl: sslProductExample } } },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { product: 'ssl_sectigo_dv' } },
  components: { SslProduct },
};

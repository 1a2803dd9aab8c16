import { sslProduct } from '../../shared/certificates/products.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { SslProductRequest } from './schema.ts';

/** GET /v2/ssl/products/{product}: one SSL product, `fields` repeated or comma-separated. */
export const handler = endpoint({ route: 'ssl-product', request: SslProductRequest, repeatedQuery: true }, ({ input }) =>
  sslProduct(input.path.product, input.query.fields),
);

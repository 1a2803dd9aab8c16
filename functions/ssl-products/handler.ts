import { listSslProducts } from '../../shared/certificates/products.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { SslProductListRequest } from './schema.ts';

/** GET /v2/ssl/products: the SSL product catalogue, a page at a time. */
export const handler = endpoint({ route: 'ssl-products', request: SslProductListRequest }, ({ input }) => listSslProducts(input.query));

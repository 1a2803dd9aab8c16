import { sslProduct } from '../../shared/certificates/products.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { SslProductRequest } from './schema.ts';

/** GET /v2/ssl/products/{product}: one SSL product. */
export const handler = endpoint({ route: 'ssl-product', request: SslProductRequest }, ({ input }) => sslProduct(input.path.product));

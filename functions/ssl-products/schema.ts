import * as v from 'valibot';
import { catalogueQuery } from '../../shared/schemas/listing.ts';

/** GET /v2/ssl/products: a page of the SSL product catalogue (limit, offset, q, order by product, total). */
export const SslProductListRequest = v.object({
  path: v.object({}),
  query: v.object(catalogueQuery('product')),
  body: v.undefined(),
});

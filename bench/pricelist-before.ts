import { PriceListRequest } from '../functions/pricelist/schema.ts';
import { getPriceList } from '../shared/db/repositories/prices.ts';
import { AuthorizationError } from '../shared/errors.ts';
import { endpoint } from '../shared/http/pipeline.ts';
import { ok } from '../shared/http/response.ts';
import { priceListAt } from '../shared/pricing/price-list-snapshot.ts';
import { now } from '../shared/time.ts';

/**
 * The price list GET as it was before its snapshot (commit 7b91fca), kept callable in the bench
 * only, so one run measures before and after on the same DynamoDB Local: the list read whole (one
 * Query paged to the end), built, then serialized, hashed and compressed by the pipeline on every
 * request. Without `currency` (the bench's rows), which it converted the same way.
 */
export const handler = endpoint(
  { route: 'pricelist', request: PriceListRequest },
  async ({ input, principal }) => {
    if (input.path.customer !== principal.customer) throw new AuthorizationError('not yours');
    return priceListAt(await getPriceList(input.path.customer), now());
  },
  (list) => ok(list),
);

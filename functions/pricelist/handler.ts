import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { customerPriceList } from '../../shared/pricing/customer-price-list.ts';
import { PriceListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/pricelist[?currency=] (contract 3.5): the list, and the rate date when converted. */
export const handler = endpoint(
  { route: 'pricelist', request: PriceListRequest },
  ({ input, principal }) => customerPriceList(principal.customer, input.path.customer, input.query.currency),
  ({ list, rateDate }) => ok(list, rateDate ? { 'X-Exchange-Rate-Date': rateDate } : {}),
);

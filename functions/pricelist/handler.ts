import { endpoint } from '../../shared/http/pipeline.ts';
import { ok, type Reply } from '../../shared/http/response.ts';
import { customerPriceList, type PriceListView } from '../../shared/pricing/customer-price-list.ts';
import { PriceListRequest } from './schema.ts';

/** The list as stored goes out precoded (its snapshot's codings); a converted list with the rate date. */
const respond = (view: PriceListView): Reply =>
  'serialized' in view ? { status: 200, precoded: view.serialized, headers: {} } : ok(view.list, { 'X-Exchange-Rate-Date': view.rateDate });

/** GET /v2/customers/{customer}/pricelist[?currency=] (contract 3.5): the list, and the rate date when converted. */
export const handler = endpoint(
  { route: 'pricelist', request: PriceListRequest },
  ({ input, principal }) => customerPriceList(principal.customer, input.path.customer, input.query.currency),
  respond,
);

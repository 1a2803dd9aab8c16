import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { customerPriceList } from './pricelist.ts';
import { PriceListRequest } from './schema.ts';

export const handler = endpoint({ route: 'pricelist', request: PriceListRequest }, async ({ input, principal }) => {
  const { body, rateDate } = await customerPriceList(principal.customer, input.path.customer, input.query.currency);
  return ok(body, rateDate ? { 'X-Exchange-Rate-Date': rateDate } : {});
});

import * as v from 'valibot';
import { Currency, Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/pricelist[?currency=EUR|USD] (contract 3.5); currency case-insensitive. */
export const PriceListRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({ currency: v.optional(Currency) }),
  body: v.undefined(),
});

import * as v from 'valibot';
import { Currency } from '../../shared/schemas/primitives.ts';

/** GET /v2/exchangerates/{currency}: EUR or USD, case-insensitive. */
export const ExchangeRatesRequest = v.object({
  path: v.object({ currency: Currency }),
  query: v.object({}),
  body: v.undefined(),
});

import * as v from 'valibot';

/** GET /v2/exchangerates: no parameters. */
export const ExchangeRatesListRequest = v.object({
  path: v.object({}),
  query: v.object({}),
  body: v.undefined(),
});

import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { exchangeRatesOf } from '../../shared/pricing/exchange-rates.ts';
import { ExchangeRatesRequest } from './schema.ts';

/** GET /v2/exchangerates/{currency}: the latest stored exchange rates of a currency, and their date. */
export const handler = endpoint(
  { route: 'exchange-rates-info', request: ExchangeRatesRequest },
  ({ input }) => exchangeRatesOf(input.path.currency as 'EUR' | 'USD'),
  ({ rates, date }) => ok(rates, { 'X-Exchange-Rate-Date': date }),
);

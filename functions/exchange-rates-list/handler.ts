import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { allExchangeRates } from '../../shared/pricing/exchange-rates.ts';
import { ExchangeRatesListRequest } from './schema.ts';

/** GET /v2/exchangerates: the latest stored exchange rates of every currency answered, and their date. */
export const handler = endpoint(
  { route: 'exchange-rates-list', request: ExchangeRatesListRequest },
  () => allExchangeRates(),
  ({ rates, date }) => ok(rates, date ? { 'X-Exchange-Rate-Date': date } : {}),
);

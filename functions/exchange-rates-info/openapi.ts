import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ExchangeRates } from '../../shared/pricing/exchange-rates-view.ts';
import { ExchangeRatesRequest } from './schema.ts';

/** GET /v2/exchangerates/{currency} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ExchangeRatesRequest,
  description:
    "What one euro or one US dollar buys of each other currency (the SDKs' `getExchangeRates` / `exchangeRates`), at the most recent stored daily ECB euro reference rates, the ones price lists are converted at: as published for EUR, as cross rates through the euro (6 significant digits) for USD. `X-Exchange-Rate-Date` names the rates' date. No rates stored yet: 404.",
  tags: ['Pricing'],
  responses: {
    '200': {
      description: 'The exchange rates.',
      headers: [{ name: 'X-Exchange-Rate-Date', required: true }],
      content: {
        'application/json': {
          json: ExchangeRates,
          examples: { euro: { currency: 'EUR', exchangerates: { CHF: 0.9248, GBP: 0.87955, JPY: 180.41, USD: 1.1523 } } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { currency: 'EUR' } },
  components: { ExchangeRates },
};

import * as v from 'valibot';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ExchangeRates } from '../../shared/pricing/exchange-rates-view.ts';
import { ExchangeRatesListRequest } from './schema.ts';

/** GET /v2/exchangerates in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ExchangeRatesListRequest,
  description:
    "The exchange rates of every currency `GET /v2/exchangerates/{currency}` answers (the TS SDK's `listExchangeRates`): EUR's, then USD's, each as that route answers it, from the same most recent stored daily ECB euro reference rates. `X-Exchange-Rate-Date` names the rates' date. No rates stored yet: an empty list.",
  tags: ['Pricing'],
  responses: {
    '200': {
      description: 'The exchange rates of each currency.',
      headers: [{ name: 'X-Exchange-Rate-Date', required: false }],
      content: {
        'application/json': {
          json: v.array(ExchangeRates),
          examples: {
            rates: [
              { currency: 'EUR', exchangerates: { CHF: 0.9248, GBP: 0.87955, JPY: 180.41, USD: 1.1523 } },
              { currency: 'USD', exchangerates: { CHF: 0.802569, EUR: 0.86783, GBP: 0.763299, JPY: 156.565 } },
            ],
          },
        },
      },
    },
  },
  errors: [],
  examples: {},
  components: { ExchangeRates },
};

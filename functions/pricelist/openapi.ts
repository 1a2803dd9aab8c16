import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { PriceEntry, PriceListBody, PromoEntry } from '../../shared/pricing/price-list-view.ts';
import { PriceListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/pricelist in the OpenAPI document. */
export const docs: OperationDocs = {
  request: PriceListRequest,
  description:
    "The caller's own price list (spec 2.11, contract 3.5): current prices, scheduled changes and promos, in product-then-action order. With `currency` (EUR or USD, case-insensitive) every amount is converted at the most recent stored daily ECB rate, rounded half away from zero to whole cents; `X-Exchange-Rate-Date` names the rate date used.",
  tags: ['Pricing'],
  responses: {
    '200': {
      description: 'The price list.',
      headers: [{ name: 'X-Exchange-Rate-Date' }],
      content: {
        'application/json': {
          json: PriceListBody,
          examples: {
            converted: {
              prices: [
                { product: 'domain_co.uk', action: 'CREATE', currency: 'USD', price: 690, fromDate: '2026-01-01T00:00:00Z' },
                { product: 'domain_co.uk', action: 'RENEW', currency: 'USD', price: 690, fromDate: '2026-01-01T00:00:00Z' },
              ],
              priceChanges: [{ product: 'domain_com', action: 'CREATE', currency: 'USD', price: 1301, fromDate: '2030-01-01T00:00:00Z' }],
              promos: [
                {
                  product: 'domain_nl',
                  action: 'CREATE',
                  currency: 'USD',
                  price: 114,
                  fromDate: '2026-11-01T00:00:00Z',
                  endDate: '2029-12-31T00:00:00Z',
                  active: true,
                },
              ],
            },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { path: { customer: 'demo' }, query: { currency: 'USD' } },
  components: { PriceList: PriceListBody, PriceEntry, PromoEntry },
};

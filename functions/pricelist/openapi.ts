import * as v from 'valibot';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { WireTime } from '../../shared/schemas/primitives.ts';
import { PriceListRequest } from './schema.ts';

const Cents = v.pipe(v.number(), v.integer(), v.description('Cents.'));

/** A price entry of spec 2.11. */
export const PriceEntry = v.strictObject({
  product: v.string(),
  action: v.string(),
  currency: v.string(),
  price: Cents,
  fromDate: WireTime,
});

/** A promo entry of spec 2.11; `active`: whether this customer takes part. */
export const PromoEntry = v.strictObject({ ...PriceEntry.entries, endDate: WireTime, active: v.boolean() });

/** Contract 3.5 response body. */
export const PriceListBody = v.strictObject({
  prices: v.pipe(v.array(PriceEntry), v.description('The price in force now per product and action, and since when.')),
  priceChanges: v.pipe(v.array(PriceEntry), v.description('Scheduled future prices.')),
  promos: v.pipe(v.array(PromoEntry), v.description('Promos not yet over (running or upcoming).')),
});

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

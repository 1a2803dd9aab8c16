import * as v from 'valibot';
import { WireTime } from '../schemas/primitives.ts';

/**
 * The price list as a customer reads it (spec 2.11, contract 3.5). The use case
 * (customer-price-list.ts) takes only the types, so these schemas weigh nothing in its function;
 * the route's API description publishes them.
 */

const Cents = v.pipe(v.number(), v.integer(), v.description('Cents.'));

/** A price entry of spec 2.11. */
export const PriceEntry = v.strictObject({
  product: v.string(),
  action: v.string(),
  currency: v.string(),
  price: Cents,
  fromDate: WireTime,
});
export type PriceEntry = v.InferOutput<typeof PriceEntry>;

/** A promo entry of spec 2.11; `active`: whether this customer takes part. */
export const PromoEntry = v.strictObject({ ...PriceEntry.entries, endDate: WireTime, active: v.boolean() });
export type PromoEntry = v.InferOutput<typeof PromoEntry>;

/** Contract 3.5 response body. */
export const PriceListBody = v.strictObject({
  prices: v.pipe(v.array(PriceEntry), v.description('The price in force now per product and action, and since when.')),
  priceChanges: v.pipe(v.array(PriceEntry), v.description('Scheduled future prices.')),
  promos: v.pipe(v.array(PromoEntry), v.description('Promos not yet over (running or upcoming).')),
});
export type PriceListBody = v.InferOutput<typeof PriceListBody>;

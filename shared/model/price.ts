import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

const Cents = v.pipe(v.number(), v.integer(), v.minValue(0));
const CurrencyCode = v.picklist(['EUR', 'USD']);

/**
 * One price of a customer's list (spec 2.11): the amount in cents for a product and action from
 * `fromDate` on, until a later price of the same product and action takes over. Prices whose
 * `fromDate` is in the future are the scheduled price changes.
 */
export const PriceRecord = v.object({
  customer: Handle,
  /** A product name (`domain_com`, `ssl_sectigo_dv`); never `#`, which separates the parts of its key. */
  product: v.pipe(v.string(), v.regex(/^[^#]+$/, 'must not hold #')),
  action: v.string(),
  currency: CurrencyCode,
  price: Cents,
  fromDate: WireTime,
});
export type PriceRecord = v.InferOutput<typeof PriceRecord>;

/** A promo price on a customer's list, in force between `fromDate` and `endDate`; `active` when the customer takes part. */
export const PromoRecord = v.object({
  ...PriceRecord.entries,
  endDate: WireTime,
  active: v.boolean(),
});
export type PromoRecord = v.InferOutput<typeof PromoRecord>;

import * as v from 'valibot';
import { Handle, WireTime } from '../../schemas/primitives.ts';
import { parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const priceEntity = 'price';
const promoEntity = 'promo';

const Cents = v.pipe(v.number(), v.integer(), v.minValue(0));
const CurrencyCode = v.picklist(['EUR', 'USD']);

/**
 * One price of a customer's list (spec 2.11): the amount in cents for a product and action from
 * `fromDate` on, until a later price of the same product and action takes over. Prices whose
 * `fromDate` is in the future are the scheduled price changes.
 */
export const PriceRecord = v.object({
  customer: Handle,
  product: v.string(),
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

/** The item a price is stored as (for bulk writes). */
export function priceItem(record: PriceRecord): Record<string, unknown> {
  return toItem(keys.price(record.customer, record.product, record.action, record.fromDate), priceEntity, record);
}

export function putPrice(record: PriceRecord, ifAbsent = false): Promise<boolean> {
  return putItem(priceItem(record), ifAbsent);
}

export function putPromo(record: PromoRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.promo(record.customer, record.product, record.action, record.fromDate), promoEntity, record), ifAbsent);
}

/**
 * A customer's whole price list, prices and promos, in one Query (paged to the end), in sort-key
 * order: product, then action, then date.
 */
export async function getPriceList(customer: string): Promise<{ prices: PriceRecord[]; promos: PromoRecord[] }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.priceList(customer).pk },
  });
  const prices: PriceRecord[] = [];
  const promos: PromoRecord[] = [];
  for (const item of items) {
    if (item.entity === promoEntity) promos.push(parseItem(PromoRecord, promoEntity, item));
    else prices.push(parseItem(PriceRecord, priceEntity, item));
  }
  return { prices, promos };
}

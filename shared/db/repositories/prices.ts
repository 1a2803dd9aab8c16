import { PriceRecord, PromoRecord } from '../../model/price.ts';
import { parseItem, putItem, queryAll, queryPartition, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { raisePriceListVersion } from './price-snapshots.ts';

const priceEntity = 'price';
const promoEntity = 'promo';

/**
 * The item a price is stored as, for bulk writes: a bulk writer refreshes the customer's snapshot
 * after it (`refreshPriceSnapshot`, shared/pricing/price-list-snapshot.ts).
 */
export function priceItem(record: PriceRecord): Record<string, unknown> {
  return toItem(keys.price(record.customer, record.product, record.action, record.fromDate), priceEntity, record);
}

/**
 * Writes a price. Every write raises the customer's price list version (its snapshot is stale from
 * then on: shared/pricing/price-list-snapshot.ts) unless `raise` is false, for a writer that
 * raises it itself around a bulk write and then rebuilds the snapshot (the dataset loader).
 */
export async function putPrice(record: PriceRecord, ifAbsent = false, raise = true): Promise<boolean> {
  const written = await putItem(priceItem(record), ifAbsent);
  if (written && raise) await raisePriceListVersion(record.customer);
  return written;
}

/** Writes a promo; the customer's price list version as for `putPrice`. */
export async function putPromo(record: PromoRecord, ifAbsent = false, raise = true): Promise<boolean> {
  const written = await putItem(
    toItem(keys.promo(record.customer, record.product, record.action, record.fromDate), promoEntity, record),
    ifAbsent,
  );
  if (written && raise) await raisePriceListVersion(record.customer);
  return written;
}

/**
 * A customer's whole price list, prices and promos, in one Query (paged to the end), in sort-key
 * order: product, then action, then date.
 */
export async function getPriceList(customer: string): Promise<{ prices: PriceRecord[]; promos: PromoRecord[] }> {
  return splitList(await queryPartition(keys.priceList(customer).pk));
}

/**
 * One product's prices and promos from a customer's list: one Query of a few items, whatever the
 * size of the list (what a transfer or a renewal needs to price itself).
 */
export async function getProductPrices(customer: string, product: string): Promise<{ prices: PriceRecord[]; promos: PromoRecord[] }> {
  const k = keys.productPrices(customer, product);
  return splitList(
    await queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': k.pk, ':prefix': k.skPrefix },
    }),
  );
}

function splitList(items: Record<string, unknown>[]): { prices: PriceRecord[]; promos: PromoRecord[] } {
  const prices: PriceRecord[] = [];
  const promos: PromoRecord[] = [];
  for (const item of items) {
    if (item.entity === promoEntity) promos.push(parseItem(PromoRecord, promoEntity, item));
    else prices.push(parseItem(PriceRecord, priceEntity, item));
  }
  return { prices, promos };
}

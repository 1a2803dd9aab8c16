import type { PriceRecord, PromoRecord } from '../model/price.ts';
import { toWireTime } from '../time.ts';

/**
 * Price resolution over one customer's list, as `getPriceList` (shared/db/repositories/prices.ts)
 * reads it in one Query. Pure functions of the list and an instant, so callers read the list once
 * and ask as many questions as they like.
 *
 * A list holds, per product and action, a history of prices (each valid from its `fromDate` until
 * the next one takes over) and promos (a promo price between `fromDate` inclusive and `endDate`
 * exclusive, applicable only when the customer takes part: `active`).
 */

export interface PriceList {
  prices: PriceRecord[];
  promos: PromoRecord[];
}

/** What a customer pays now for one unit of a product and action. */
export interface EffectivePrice {
  product: string;
  action: string;
  currency: PriceRecord['currency'];
  /** Cents per unit. */
  price: number;
  /** Since when: the price's `fromDate`, or the promo's. */
  fromDate: string;
  /** Set when an applicable promo undercuts the list price. */
  promo?: PromoRecord;
}

/** Code-unit order (not locale order), so the order is the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders entries by product, then action, then date: the stable order of the price list. */
export function byProductActionDate<T extends { product: string; action: string; fromDate: string }>(a: T, b: T): number {
  return compare(a.product, b.product) || compare(a.action, b.action) || compare(a.fromDate, b.fromDate);
}

/** Wire times sort as strings; `at` as a wire time keeps every comparison a string comparison. */
const wire = (at: Date): string => toWireTime(at);

/**
 * The price in force at `at` for every product and action that has one: the latest price whose
 * `fromDate` is not after `at`. Sorted by product, then action.
 */
export function currentPrices(list: PriceList, at: Date): PriceRecord[] {
  const now = wire(at);
  const current = new Map<string, PriceRecord>();
  for (const price of list.prices) {
    if (price.fromDate > now) continue;
    const key = `${price.product}\u0000${price.action}`;
    const held = current.get(key);
    if (!held || price.fromDate > held.fromDate) current.set(key, price);
  }
  return [...current.values()].sort(byProductActionDate);
}

/** Prices scheduled to take effect after `at` (the price changes), by product, action and date. */
export function scheduledPriceChanges(list: PriceList, at: Date): PriceRecord[] {
  const now = wire(at);
  return list.prices.filter((p) => p.fromDate > now).sort(byProductActionDate);
}

/** The price in force at `at` for one product and action; undefined when the list has none. */
export function currentPrice(list: PriceList, product: string, action: string, at: Date): PriceRecord | undefined {
  const now = wire(at);
  let found: PriceRecord | undefined;
  for (const price of list.prices) {
    if (price.product !== product || price.action !== action || price.fromDate > now) continue;
    if (!found || price.fromDate > found.fromDate) found = price;
  }
  return found;
}

/** Promos not yet over at `at` (running or upcoming), whether or not the customer takes part. */
export function openPromos(list: PriceList, at: Date): PromoRecord[] {
  const now = wire(at);
  return list.promos.filter((p) => p.endDate > now).sort(byProductActionDate);
}

/** Whether a promo applies at `at`: the customer takes part and `fromDate <= at < endDate`. */
export function promoApplies(promo: PromoRecord, at: Date): boolean {
  const now = wire(at);
  return promo.active && promo.fromDate <= now && now < promo.endDate;
}

/**
 * What the customer pays now per unit of a product and action: the current list price, or the
 * lowest applicable promo price in the same currency when that is lower. Undefined when the list
 * has no current price for it (the product is not sold to this customer).
 */
export function effectivePrice(list: PriceList, product: string, action: string, at: Date): EffectivePrice | undefined {
  const base = currentPrice(list, product, action, at);
  if (!base) return undefined;
  let best: EffectivePrice = { product, action, currency: base.currency, price: base.price, fromDate: base.fromDate };
  for (const promo of list.promos) {
    if (promo.product !== product || promo.action !== action || promo.currency !== base.currency) continue;
    if (promoApplies(promo, at) && promo.price < best.price) {
      best = { product, action, currency: promo.currency, price: promo.price, fromDate: promo.fromDate, promo };
    }
  }
  return best;
}

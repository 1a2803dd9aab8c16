import { getPriceList } from '../../shared/db/repositories/prices.ts';
import { AuthorizationError, ValidationError } from '../../shared/errors.ts';
import type { PriceRecord, PromoRecord } from '../../shared/model/price.ts';
import { convertCents, currentPrices, latestRates, openPromos, scheduledPriceChanges } from '../../shared/pricing/index.ts';
import { now } from '../../shared/time.ts';

/** A price entry of spec 2.11. */
export interface PriceEntry {
  product: string;
  action: string;
  currency: string;
  price: number;
  fromDate: string;
}

/** A promo entry of spec 2.11. */
export interface PromoEntry extends PriceEntry {
  endDate: string;
  active: boolean;
}

/** Contract 3.5 response body. */
export interface PriceListBody {
  prices: PriceEntry[];
  priceChanges: PriceEntry[];
  promos: PromoEntry[];
}

export interface PriceListView {
  list: PriceListBody;
  /** The date of the rates used, when the list was converted. */
  rateDate?: string;
}

const priceEntry = (p: PriceRecord): PriceEntry => ({
  product: p.product,
  action: p.action,
  currency: p.currency,
  price: p.price,
  fromDate: p.fromDate,
});
const promoEntry = (p: PromoRecord): PromoEntry => ({ ...priceEntry(p), endDate: p.endDate, active: p.active });

/**
 * A customer's price list now (contract 3.5): current prices, scheduled changes and the promos not
 * yet over, in product-then-action order; with `currency`, every amount converted at the most
 * recent stored daily rate. One table Query on the warm path (the rates are cached).
 */
export async function customerPriceList(caller: string, customer: string, currency?: 'EUR' | 'USD'): Promise<PriceListView> {
  if (customer !== caller) throw new AuthorizationError(`The price list of customer '${customer}' is not yours to read.`);
  const [stored, rates] = await Promise.all([getPriceList(customer), currency ? latestRates() : undefined]);
  const at = now();
  const list: PriceListBody = {
    prices: currentPrices(stored, at).map(priceEntry),
    priceChanges: scheduledPriceChanges(stored, at).map(priceEntry),
    promos: openPromos(stored, at).map(promoEntry),
  };
  if (!currency) return { list };
  if (!rates) throw new ValidationError('No exchange rates are stored yet; the price list cannot be converted. Retry without currency.');
  const convert = <T extends PriceEntry>(entry: T): T => ({
    ...entry,
    currency,
    price: convertCents(entry.price, entry.currency, currency, rates),
  });
  return {
    list: { prices: list.prices.map(convert), priceChanges: list.priceChanges.map(convert), promos: list.promos.map(convert) },
    rateDate: rates.date,
  };
}

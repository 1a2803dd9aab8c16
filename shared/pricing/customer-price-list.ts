import { getPriceList } from '../db/repositories/prices.ts';
import { AuthorizationError, ValidationError } from '../errors.ts';
import type { PriceRecord, PromoRecord } from '../model/price.ts';
import { now } from '../time.ts';
import { convertCents } from './currency.ts';
import { currentPrices, openPromos, scheduledPriceChanges } from './price-list.ts';
import type { PriceEntry, PriceListBody, PromoEntry } from './price-list-view.ts';
import { latestRates } from './rates.ts';

/** A customer's price list, and the date of the rates used when it was converted. */
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

import { AuthorizationError, ValidationError } from '../errors.ts';
import { now } from '../time.ts';
import { convertCents } from './currency.ts';
import { priceListNow, type SerializedPriceList } from './price-list-snapshot.ts';
import type { PriceEntry, PriceListBody } from './price-list-view.ts';
import { latestRates } from './rates.ts';

/**
 * A customer's price list: serialized as stored (in its own currencies), or converted, with the
 * date of the rates used.
 */
export type PriceListView = { serialized: SerializedPriceList } | { list: PriceListBody; rateDate: string };

/**
 * A customer's price list now (contract 3.5): current prices, scheduled changes and the promos not
 * yet over, in product-then-action order; with `currency`, every amount converted at the most
 * recent stored daily rate. One table Query on the warm path: the list's snapshot, already
 * serialized and compressed (shared/pricing/price-list-snapshot.ts; the rates are cached). A
 * snapshot that is stale or missing is never served: the list is then read whole, as before.
 */
export async function customerPriceList(caller: string, customer: string, currency?: 'EUR' | 'USD'): Promise<PriceListView> {
  if (customer !== caller) throw new AuthorizationError(`The price list of customer '${customer}' is not yours to read.`);
  const [answer, rates] = await Promise.all([priceListNow(customer, now()), currency ? latestRates() : undefined]);
  if (!currency) return { serialized: answer.serialized };
  if (!rates) throw new ValidationError('No exchange rates are stored yet; the price list cannot be converted. Retry without currency.');
  const list = answer.body();
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

import { ObjectDoesNotExist } from '../errors.ts';
import type { ExchangeRates } from './exchange-rates-view.ts';
import { latestRates } from './rates.ts';

/** Significant digits of a cross rate (the ECB publishes 5 or 6). */
const crossDigits = 6;

/**
 * The exchange rates of a currency (`GET /v2/exchangerates/{currency}`, the SDKs'
 * getExchangeRates / exchangeRates): the most recent stored ECB euro reference rates as they are
 * for EUR, and as cross rates through the euro for USD, with the rates' date. No rates stored (or
 * none for the currency): 404.
 */
export async function exchangeRatesOf(currency: 'EUR' | 'USD'): Promise<{ rates: ExchangeRates; date: string }> {
  return ratesOf(currency, await latestRates());
}

/**
 * The exchange rates of every currency the API answers them for (`GET /v2/exchangerates`, the TS
 * SDK's listExchangeRates): EUR's, then USD's (while a USD rate is stored), from the same stored
 * rates, with their date. No rates stored: an empty list.
 */
export async function allExchangeRates(): Promise<{ rates: ExchangeRates[]; date?: string }> {
  const stored = await latestRates();
  if (!stored) return { rates: [] };
  const rates = currencies.filter((c) => c === 'EUR' || stored.rates[c] !== undefined).map((c) => ratesOf(c, stored).rates);
  return { rates, date: stored.date };
}

const currencies = ['EUR', 'USD'] as const;

function ratesOf(currency: 'EUR' | 'USD', stored: Awaited<ReturnType<typeof latestRates>>): { rates: ExchangeRates; date: string } {
  const perEuro = stored?.rates[currency] ?? (currency === 'EUR' ? 1 : undefined);
  if (!stored || perEuro === undefined) throw new ObjectDoesNotExist('ExchangeRates', currency);
  const all: Record<string, number> = { EUR: 1, ...stored.rates };
  const exchangerates: Record<string, number> = {};
  for (const [code, rate] of Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (code === currency) continue;
    exchangerates[code] = currency === 'EUR' ? rate : Number((rate / perEuro).toPrecision(crossDigits));
  }
  return { rates: { currency, exchangerates }, date: stored.date };
}

import { getLatestRates, putRates } from '../db/repositories/rates.ts';
import { logger } from '../logger.ts';
import { now, toWireTime } from '../time.ts';
import { defaultEcbRatesUrl, fetchEcbDaily, implausibleMove, parseEcbDaily, RatesDocumentError } from './ecb.ts';
import { forgetCachedRates } from './rates.ts';

/** What a run of the daily job did. */
export interface RatesUpdate {
  date: string;
  currencies: number;
  /** False when that day's rates were already stored (a second run changes nothing). */
  stored: boolean;
}

/** Whether two days' rates name the same currencies at the same rates. */
function sameRates(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** The URL of the daily rates: `ECB_RATES_URL`, else the ECB's public one. */
export function ecbRatesUrl(): string {
  return process.env.ECB_RATES_URL?.trim() || defaultEcbRatesUrl;
}

/**
 * Fetches the ECB's daily reference rates and stores them under their own date, put-if-absent: a
 * day's rates are final, so running twice (or retrying) changes nothing. Anything wrong with the
 * fetch or the document, or rates that moved implausibly far since the newest stored day
 * (ecb.ts `implausibleMove`), throws before a write, so the last good rates stay in force.
 */
export async function updateExchangeRates(url: string = ecbRatesUrl()): Promise<RatesUpdate> {
  const daily = parseEcbDaily(await fetchEcbDaily(url), now());
  const latest = await getLatestRates('EUR');
  const implausible = implausibleMove(daily, latest);
  if (implausible) throw new RatesDocumentError(`Implausible rates: ${implausible}`);
  const stored = await putRates({ base: 'EUR', date: daily.date, rates: daily.rates, source: url, fetchedDate: toWireTime(now()) }, true);
  if (stored) forgetCachedRates();
  else if (latest?.date === daily.date && !sameRates(latest.rates, daily.rates)) {
    logger.warn('the ECB published other rates for a day already stored; the stored rates are kept', { date: daily.date });
  }
  return { date: daily.date, currencies: Object.keys(daily.rates).length, stored };
}

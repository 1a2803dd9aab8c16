import { getLatestRates } from '../db/repositories/rates.ts';
import type { RateRecord } from '../model/rate.ts';

/**
 * The latest stored exchange rates, cached in module scope so that a warm function answers a
 * converted price list with one table call (the price list Query) instead of two.
 *
 * The ECB publishes once a working day, so a short cache costs little freshness: new rates are seen
 * at most `RATES_CACHE_SECONDS` (default 300) after the daily job stores them. Only a found record
 * is cached; while no rates are stored, every call looks again.
 */

let cached: { rates: RateRecord; expires: number } | undefined;

function ttlMs(): number {
  const seconds = Number(process.env.RATES_CACHE_SECONDS ?? 300);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 300_000;
}

/** The most recent stored euro reference rates (cached), or undefined when none are stored. */
export async function latestRates(): Promise<RateRecord | undefined> {
  const now = Date.now();
  if (cached && cached.expires > now) return cached.rates;
  const rates = await getLatestRates('EUR');
  cached = rates ? { rates, expires: now + ttlMs() } : undefined;
  return rates;
}

/** Drops the cached rates (after storing new ones in the same process, and in tests). */
export function forgetCachedRates(): void {
  cached = undefined;
}

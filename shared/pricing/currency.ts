import { ValidationError } from '../errors.ts';
import type { RateRecord } from '../model/rate.ts';

/**
 * Currency conversion at a stored daily rate (the ECB's euro reference rates: 1 EUR = rates[X] X).
 * Amounts are integer cents. The arithmetic is exact (BigInt over the rates' decimal digits) and
 * rounds once, at the end, half away from zero: 0.5 cent up for a charge, down for a credit.
 */

/** A decimal number as an exact fraction `numerator / 10^scale`. */
interface Decimal {
  numerator: bigint;
  scale: number;
}

/** Reads a finite number's shortest decimal form (`1.0835`, `1e-7`) exactly. */
function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`Cannot read ${value} as a decimal`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`;
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  return { numerator: BigInt(`${sign}${digits}`), scale };
}

/** `n / d` rounded half away from zero (d > 0). */
function divideRounded(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const magnitude = negative ? -n : n;
  const q = (2n * magnitude + d) / (2n * d);
  return negative ? -q : q;
}

/** The units of `currency` per euro in a day's rates; EUR itself is 1. */
function perEuro(rates: RateRecord, currency: string): Decimal {
  if (currency === rates.base) return { numerator: 1n, scale: 0 };
  const rate = rates.rates[currency];
  if (rate === undefined || !(rate > 0)) {
    throw new ValidationError(`No ${currency} exchange rate is stored for ${rates.date}; the amount cannot be converted.`);
  }
  return toDecimal(rate);
}

/**
 * Converts an integer amount of cents from one currency to another at one day's rates, exactly,
 * rounding the result half away from zero to whole cents. Same currency: the amount unchanged.
 * A currency the rates do not cover: ValidationError (never a wrong number).
 */
export function convertCents(cents: number, from: string, to: string, rates: RateRecord): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Amount must be whole cents: ${cents}`);
  if (from === to) return cents;
  // cents * (to per EUR) / (from per EUR), as one fraction so that there is one rounding only.
  const toRate = perEuro(rates, to);
  const fromRate = perEuro(rates, from);
  const numerator = BigInt(cents) * toRate.numerator * 10n ** BigInt(fromRate.scale);
  const denominator = fromRate.numerator * 10n ** BigInt(toRate.scale);
  return Number(divideRounded(numerator, denominator));
}

/** Wire timestamps per contract section 1: `yyyy-MM-ddTHH:mm:ssZ`, UTC, no fractional seconds. */
export function toWireTime(date: Date | string | number): string {
  const d = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(d.getTime())) throw new RangeError(`Invalid date: ${String(date)}`);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The current instant; the one clock the service reads, so tests can reason about "now". */
export function now(): Date {
  return new Date();
}

/**
 * `date` plus whole calendar months in UTC, the way registries extend an expiry: the day of month
 * is kept, or clamped to the month's last day (2026-01-31 + 1 month = 2026-02-28).
 */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

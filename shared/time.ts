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

import * as v from 'valibot';

/** The reference rates of one day against a base currency: 1 base = rates[X] X. */
export const RateRecord = v.object({
  base: v.literal('EUR'),
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  rates: v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), v.pipe(v.number(), v.gtValue(0))),
  /** Where and when the rates were fetched (source URL, wire time). */
  source: v.optional(v.string()),
  fetchedDate: v.optional(v.string()),
});
export type RateRecord = v.InferOutput<typeof RateRecord>;

import * as v from 'valibot';

/**
 * A charged (or quoted) line: contract section 4. A process records the lines it charged
 * (process.ts, which re-exports this); a quote lists them with their documentation (quote.ts).
 * On its own so that the API description takes the line without the process record.
 */
export const ChargedBillable = v.object({
  product: v.string(),
  action: v.string(),
  quantity: v.pipe(v.number(), v.integer()),
  amount: v.pipe(v.number(), v.integer()),
  /** Who charges it: the registry of a domain, the authority of a certificate (absent on lines recorded before it was kept). */
  providerName: v.optional(v.string()),
  refundable: v.boolean(),
  total: v.pipe(v.number(), v.integer()),
});

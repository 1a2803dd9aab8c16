import * as v from 'valibot';
import { ChargedBillable } from './billable.ts';

/**
 * The quote of contract section 4, as the API answers it (`?quote=true`, and inside a
 * BillableAcknowledgmentNeededException). Pricing (shared/pricing/quote.ts) takes only the types,
 * so these schemas weigh nothing in the functions that quote; the API description publishes them.
 */

/** One charge: `amount` cents per unit, `total = quantity * amount`; the line a process records (ChargedBillable). */
export const Billable = v.strictObject({
  ...ChargedBillable.entries,
  amount: v.pipe(ChargedBillable.entries.amount, v.description('Cents per unit.')),
  providerName: v.pipe(
    v.string(),
    v.description('Who charges it: the registry of a domain (`sidn`), the certificate authority of a certificate (`sectigo`).'),
  ),
  total: v.pipe(ChargedBillable.entries.total, v.description('`quantity * amount`, in cents.')),
});
export type Billable = v.InferOutput<typeof Billable>;

/** A charge before the quote adds it up. */
export const QuoteLine = v.omit(Billable, ['total']);
export type QuoteLine = v.InferOutput<typeof QuoteLine>;

/** The quote object of contract section 4; `currency` and `billables` are left out when `total` is 0. */
export const Quote = v.strictObject({
  total: v.pipe(v.number(), v.integer(), v.description('Cents.')),
  currency: v.optional(v.string()),
  billables: v.optional(v.array(Billable)),
});
export type Quote = v.InferOutput<typeof Quote>;

/** The body of a `?quote=true` answer: the operation (`DomainTransfer`, ...) and its quote. */
export const QuoteBody = v.strictObject({ command: v.string(), quote: Quote });
export type QuoteBody = v.InferOutput<typeof QuoteBody>;

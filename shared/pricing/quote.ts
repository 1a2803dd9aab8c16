import * as v from 'valibot';
import { BillableAcknowledgmentNeeded } from '../errors.ts';
import type { Billable, Quote, QuoteBody, QuoteLine } from '../model/quote.ts';
import { bodyObject, listOf } from '../schemas/primitives.ts';
import { effectivePrice, type PriceList } from './price-list.ts';

export type { Billable, Quote, QuoteBody, QuoteLine };

/**
 * Quotes and billable acknowledgment (contract section 4). A use case prices what a request would
 * charge as quote lines, builds the quote body from them, and, unless the request is only a quote,
 * checks that the caller acknowledged every line its own price list does not predict.
 */

/** Billable actions of spec 2.5. */
export const billableActions = [
  'CREATE',
  'REQUEST',
  'TRANSFER',
  'RENEW',
  'RESTORE',
  'TRANSFER_RESTORE',
  'UPDATE',
  'REGISTRANT_CHANGE',
  'LOCAL_CONTACT',
  'NEGATIVE_MARKUP',
  'PRIVACY_PROTECT',
  'EXTRA_WILDCARD',
  'EXTRA_DOMAIN',
  'REGISTRY_LOCK',
] as const;
export type BillableAction = (typeof billableActions)[number];

/** The most a billable line can count (names times years of a certificate are at most 2,510). */
const maxQuantity = 1_000_000;

/** An amount echoed from a quote: an integer that arithmetic keeps exact (at most 2^53 - 1 in magnitude). */
const AmountInCents = v.pipe(
  v.number(),
  v.integer('must be an integer'),
  v.minValue(-Number.MAX_SAFE_INTEGER, `must be at least ${-Number.MAX_SAFE_INTEGER}`),
  v.maxValue(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`),
);

/** One acknowledged billable in a request body (spec 2.5): `quantity` is the maximum, default 1. */
export const AcknowledgedBillable = bodyObject({
  product: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(100, 'must be at most 100 characters long')),
  action: v.picklist(billableActions, `must be one of ${billableActions.join(', ')}`),
  quantity: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer'),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(maxQuantity, `must be at most ${maxQuantity}`),
    ),
    1,
  ),
  // Contract section 4: clients echo `quote.billables` back as they got them, so the quote's own
  // fields are accepted too (type-checked; the acknowledgment is product, action, quantity, and an
  // `amount` below the price now quoted is refused with the new quote: assertAcknowledged).
  amount: v.optional(AmountInCents),
  providerName: v.optional(v.pipe(v.string(), v.maxLength(100, 'must be at most 100 characters long'))),
  refundable: v.optional(v.boolean()),
  total: v.optional(AmountInCents),
});
export type AcknowledgedBillable = v.InferOutput<typeof AcknowledgedBillable>;

/** The `billables` field of a request body (transfer, renew). */
export const AcknowledgedBillables = listOf(AcknowledgedBillable, 50);

/**
 * Builds the quote body for an operation (`command`, e.g. `DomainTransfer`) from its charges in
 * one currency. Lines of quantity 0 are dropped; a total of 0 leaves out currency and billables.
 */
export function buildQuote(command: string, currency: string, lines: readonly QuoteLine[]): QuoteBody {
  const billables: Billable[] = [];
  for (const line of lines) {
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 0)
      throw new RangeError(`Invalid quantity ${line.quantity} for ${line.product}`);
    if (!Number.isSafeInteger(line.amount)) throw new RangeError(`Amount of ${line.product} must be whole cents`);
    if (line.quantity === 0) continue;
    billables.push({ ...line, total: line.quantity * line.amount });
  }
  const total = billables.reduce((sum, b) => sum + b.total, 0);
  return { command, quote: total === 0 ? { total } : { total, currency, billables } };
}

/** What a quote line charges for: the product and action, how many, and who charges it (contract section 4). */
export interface Charge {
  product: string;
  action: BillableAction;
  quantity: number;
  /** The registry of a domain, the certificate authority of a certificate. */
  providerName: string;
}

/**
 * A quote line at the customer's own price (the effective price now: list price or applicable
 * promo). Undefined when the list has no price for the product and action.
 */
export function listPriceLine(
  list: PriceList,
  charge: Charge,
  at: Date,
  refundable = true,
): { line: QuoteLine; currency: string } | undefined {
  const { product, action, quantity, providerName } = charge;
  const price = effectivePrice(list, product, action, at);
  if (!price) return undefined;
  return { line: { product, action, quantity, amount: price.price, providerName, refundable }, currency: price.currency };
}

/**
 * The billables of a quote that need acknowledgment: those whose amount differs from the
 * customer's own effective price for that product and action (premium and restore fees, products
 * missing from the list, another currency).
 */
export function billablesNeedingAcknowledgment(quote: Quote, list: PriceList, at: Date): Billable[] {
  return (quote.billables ?? []).filter((b) => {
    const own = effectivePrice(list, b.product, b.action, at);
    return !own || own.currency !== quote.currency || own.price !== b.amount;
  });
}

/**
 * Throws BillableAcknowledgmentNeeded (carrying the quote) unless the caller's `billables` hold,
 * for every billable that needs acknowledgment, an entry with the same product and action and a
 * quantity at least the quoted one. An entry that states an `amount` below what the billable costs
 * now is refused too, with the new quote, whether or not the billable needs acknowledgment: a
 * price that rose between the quote and the order is never charged silently.
 */
export function assertAcknowledged(
  body: QuoteBody,
  list: PriceList,
  acknowledged: readonly { product: string; action: string; quantity?: number; amount?: number }[] | undefined,
  at: Date,
): void {
  const sent = acknowledged ?? [];
  for (const billable of body.quote.billables ?? []) {
    const stale = sent.find(
      (a) => a.product === billable.product && a.action === billable.action && a.amount !== undefined && a.amount < billable.amount,
    );
    if (stale) {
      throw new BillableAcknowledgmentNeeded(
        body.quote,
        `The price of ${billable.product} ${billable.action} is ${billable.amount} now, more than the acknowledged ${stale.amount}: send the new quote's billables back to accept it.`,
      );
    }
  }
  for (const billable of billablesNeedingAcknowledgment(body.quote, list, at)) {
    const covered = sent.some(
      (a) => a.product === billable.product && a.action === billable.action && (a.quantity ?? 1) >= billable.quantity,
    );
    if (!covered) throw new BillableAcknowledgmentNeeded(body.quote);
  }
}

import type { TransactItem } from '../transactions.ts';

/**
 * Writes that must commit in the same transaction as an operation's outcome, built from that
 * outcome. Whoever starts an operation may hand one down: the HTTP pipeline hands down the
 * Idempotency-Key record that holds the answer (shared/http/idempotency.ts). The use case calls it
 * with its outcome, for the ids its transaction claims, and passes what it gets to the repository
 * that records the outcome; the repository adds the items to that transaction. Neither knows what
 * the items are.
 */
export type CommitWith<R> = (outcome: R) => Commitment;

/** What a CommitWith gives: items for the outcome's transaction, opaque above the data layer. */
export interface Commitment {
  readonly items: readonly TransactItem[];
}

/** Nothing else to commit (no Idempotency-Key, or a quote). */
export const commitNothing: CommitWith<unknown> = () => ({ items: [] });

/** The items of a commitment, for the repository that writes the transaction. */
export function itemsOf(commitment: Commitment | undefined): TransactItem[] {
  return commitment ? [...commitment.items] : [];
}

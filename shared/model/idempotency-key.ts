import * as v from 'valibot';

/**
 * An Idempotency-Key as the table keeps it (docs/reliability.md, "Exactly once"): claimed by one
 * attempt of a request while it runs, then completed with the answer in the same transaction as the
 * request's work. What the answer holds is opaque here: the status, headers and body as they were
 * sent, the body as its exact bytes (text), so a replay is the same bytes.
 */

/** The first answer, as sent: the body is the serialized text, never re-serialized. */
export const StoredAnswer = v.object({
  status: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
  headers: v.record(v.string(), v.string()),
  contentType: v.string(),
  body: v.string(),
});
export type StoredAnswer = v.InferOutput<typeof StoredAnswer>;

const common = {
  /** The attempt that claimed the key (a random id per attempt): only it may complete or release it. */
  attempt: v.string(),
  /** SHA-256 of the request the key was first used with; another request under the key is refused. */
  requestHash: v.string(),
  /** Epoch seconds after which the key is forgotten (the table's TTL; reads check it too). */
  expiresAt: v.pipe(v.number(), v.integer()),
};

/** A key whose request is running: held until `leaseExpiresAtMs` unless the attempt renews it. */
export const KeyInProgress = v.object({ ...common, state: v.literal('IN_PROGRESS'), leaseExpiresAtMs: v.number() });
export type KeyInProgress = v.InferOutput<typeof KeyInProgress>;
/** A key whose request committed: its answer, written in the request's own transaction. */
export const KeyCompleted = v.object({ ...common, state: v.literal('COMPLETED'), answer: StoredAnswer });
export type KeyCompleted = v.InferOutput<typeof KeyCompleted>;

export const IdempotencyKeyRecord = v.variant('state', [KeyInProgress, KeyCompleted]);
export type IdempotencyKeyRecord = v.InferOutput<typeof IdempotencyKeyRecord>;

/** Who may use a key: keys are scoped to the operation and to the user of the customer account that sent them. */
export interface KeyScope {
  operation: string;
  customer: string;
  user: string;
  key: string;
}

import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/**
 * A customer's webhook endpoint (an extension of the API: `PUT/GET/DELETE
 * /v2/customers/{customer}/webhook`, `POST .../webhook/rotate`), to which every notification of
 * the customer is delivered, signed (docs/notifications.md). At most one per customer.
 */

/** How long a rotated-out secret keeps signing beside the new one. */
export const rotationOverlapSeconds = 86_400;

/** A signing secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks format). */
export const WebhookSecret = v.object({
  secret: v.pipe(v.string(), v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/)),
  createdDate: WireTime,
  /** Set on a secret rotated out: it signs until then. */
  expiresDate: v.optional(WireTime),
});
export type WebhookSecret = v.InferOutput<typeof WebhookSecret>;

/**
 * A signing secret as the table holds it: `sealed` (envelope-encrypted: shared/notifications/secret-box.ts),
 * or, stored before sealing and until `npm run admin -- migrate`, the plain `secret`.
 */
export const StoredWebhookSecret = v.object({
  sealed: v.optional(v.string()),
  secret: v.optional(WebhookSecret.entries.secret),
  createdDate: WireTime,
  expiresDate: v.optional(WireTime),
});
export type StoredWebhookSecret = v.InferOutput<typeof StoredWebhookSecret>;

export const webhookStatuses = ['ENABLED', 'DISABLED'] as const;

export const WebhookRecord = v.object({
  customer: Handle,
  url: v.string(),
  /** Newest first: the current secret, then one still signing after a rotation (as stored: sealed). */
  secrets: v.array(StoredWebhookSecret),
  status: v.picklist(webhookStatuses),
  /** Why deliveries stopped (the endpoint answered 410 Gone). */
  disabledReason: v.optional(v.string()),
  createdDate: WireTime,
  updatedDate: WireTime,
  /** Bumped on every change of the secrets (optimistic lock of a rotation). */
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  lastDeliveryDate: v.optional(WireTime),
  lastFailureDate: v.optional(WireTime),
  lastFailure: v.optional(v.string()),
});
export type WebhookRecord = v.InferOutput<typeof WebhookRecord>;

/** The secrets that sign at `at` (newest first, as stored): the current one, and a rotated-out one until it expires. */
export function signingSecrets(webhook: Pick<WebhookRecord, 'secrets'>, at: string): StoredWebhookSecret[] {
  return webhook.secrets.filter((s) => s.expiresDate === undefined || s.expiresDate > at);
}

/**
 * A delivery waiting for its next attempt (the retry lane): one per customer and notification,
 * due at `dueDate`. While one waits for a customer, that customer's new notifications queue behind
 * it instead of being tried at once, so a failing endpoint is never tried on the shared path again.
 */
export const WebhookDelivery = v.object({
  customer: Handle,
  notificationId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Attempts made so far. */
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  dueDate: WireTime,
  /** A run that took it may hold it until then (another run leaves it alone). */
  leaseUntil: v.optional(WireTime),
  lastFailure: v.optional(v.string()),
});
export type WebhookDelivery = v.InferOutput<typeof WebhookDelivery>;

/** A notification the endpoint never took: after the last attempt, a 410, or with the endpoint gone. */
export const WebhookDeadLetter = v.object({
  customer: Handle,
  notificationId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  deadDate: WireTime,
  lastFailure: v.string(),
});
export type WebhookDeadLetter = v.InferOutput<typeof WebhookDeadLetter>;

/**
 * The wait before each retry, in seconds (attempt 1 is made at once): 9 retries over about 2.7
 * days. Each wait is spread by up to ±20 % (jitter), and is at least what `Retry-After` asked for
 * (at most a day).
 */
export const retryDelaysSeconds = [5, 300, 1800, 7200, 18_000, 36_000, 36_000, 50_400, 86_400] as const;
export const maxAttempts = retryDelaysSeconds.length + 1;
export const maxRetryAfterSeconds = 86_400;

/** When the next attempt is due after `attempts` failed ones, or undefined when none is left. */
export function nextAttemptDelay(attempts: number, retryAfterSeconds: number | undefined, random: number): number | undefined {
  const base = retryDelaysSeconds[attempts - 1];
  if (base === undefined) return undefined;
  const jittered = base * (0.8 + 0.4 * random);
  return Math.max(jittered, Math.min(retryAfterSeconds ?? 0, maxRetryAfterSeconds));
}

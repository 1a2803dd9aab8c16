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

export const webhookStatuses = ['ENABLED', 'DISABLED'] as const;

export const WebhookRecord = v.object({
  customer: Handle,
  url: v.string(),
  /** Newest first: the current secret, then one still signing after a rotation. */
  secrets: v.array(WebhookSecret),
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

/** The secrets that sign at `at`: the current one, and a rotated-out one until it expires. */
export function signingSecrets(webhook: Pick<WebhookRecord, 'secrets'>, at: string): string[] {
  return webhook.secrets.filter((s) => s.expiresDate === undefined || s.expiresDate > at).map((s) => s.secret);
}

import * as v from 'valibot';
import { webhookStatuses } from '../model/webhook.ts';
import { WireTime } from '../schemas/primitives.ts';

/** The webhook endpoint as the API answers it: never the secret, except once when it is issued. */
export const WebhookView = v.strictObject({
  url: v.string(),
  status: v.pipe(v.picklist(webhookStatuses), v.description('`DISABLED` once the endpoint answered 410 Gone (PUT it again to enable it).')),
  disabledReason: v.optional(v.string()),
  secret: v.optional(
    v.pipe(
      v.string(),
      v.description('The signing secret (`whsec_...`): answered only by the PUT that registers the endpoint and by a rotation. Keep it.'),
    ),
  ),
  createdDate: WireTime,
  updatedDate: WireTime,
  secretCreatedDate: WireTime,
  previousSecretExpiresDate: v.optional(v.pipe(WireTime, v.description('After a rotation: until when the previous secret also signs.'))),
  lastDeliveryDate: v.optional(WireTime),
  lastFailureDate: v.optional(WireTime),
  lastFailure: v.optional(
    v.pipe(v.string(), v.description('The last failed attempt: the status answered, a time-out, a refused address.')),
  ),
});
export type WebhookView = v.InferOutput<typeof WebhookView>;

export const WebhookBody = v.strictObject({
  url: v.pipe(v.string(), v.maxLength(2048), v.description('The https URL notifications are POSTed to.')),
});

/** A notification the endpoint never took (`GET .../webhook/dead-letters`). */
export const DeadLetterView = v.strictObject({
  notificationId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Attempts made before it was given up.')),
  deadDate: WireTime,
  lastFailure: v.string(),
});
export type DeadLetterView = v.InferOutput<typeof DeadLetterView>;

export const DeadLetterList = v.strictObject({ entities: v.array(DeadLetterView) });
export type DeadLetterList = v.InferOutput<typeof DeadLetterList>;

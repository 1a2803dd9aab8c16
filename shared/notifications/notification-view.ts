import * as v from 'valibot';
import { eventTypes, notificationTypes, subjectStatuses } from '../model/notification.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * A notification as the API answers it (the SDKs' Notification models: the PHP SDK's Notification
 * and NotificationPoll, the TS SDK's Notification and its typed subclasses, whose own fields sit
 * beside the common ones), a page of them and the poll's answer, as schemas for the OpenAPI
 * document and the answer checks. Kept apart from the use cases, so functions carry none of it.
 */

const Id = v.pipe(v.number(), v.integer(), v.minValue(1));

export const NotificationView = v.strictObject({
  id: Id,
  customer: v.string(),
  fireDate: WireTime,
  readDate: v.optional(v.pipe(WireTime, v.description('When it was first read (GET of the notification, or its ack).'))),
  acknowledgeDate: v.optional(WireTime),
  deliveryDate: v.optional(v.pipe(WireTime, v.description("When the customer's webhook first answered 2xx for it."))),
  message: v.string(),
  reason: v.optional(v.string()),
  process: v.optional(Id),
  processType: v.optional(v.string()),
  processIdentifier: v.optional(v.string()),
  eventType: v.picklist(eventTypes),
  notificationType: v.picklist(notificationTypes),
  isAsync: v.boolean(),
  subjectStatus: v.optional(v.picklist(subjectStatuses)),
  statusDetail: v.optional(v.string()),
  domainName: v.optional(v.string()),
  transferType: v.optional(v.string()),
  requestedDate: v.optional(WireTime),
  actionDate: v.optional(WireTime),
  expiryDate: v.optional(WireTime),
  certificateId: v.optional(Id),
  product: v.optional(v.string()),
  payload: v.optional(v.record(v.string(), v.unknown())),
});
export type NotificationView = v.InferOutput<typeof NotificationView>;
export type NotificationField = keyof NotificationView;

export const NotificationSelection = v.pipe(
  v.partial(NotificationView),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);

export const NotificationPage = v.strictObject({
  entities: v.array(v.union([NotificationView, NotificationSelection])),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many notifications match (left out with `total=false`).'))),
  }),
});
export type NotificationPage = v.InferOutput<typeof NotificationPage>;

/** GET .../notifications/poll: how many wait unacknowledged, and the oldest of them (the PHP SDK's NotificationPoll). */
export const NotificationPoll = v.strictObject({
  count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  notification: v.optional(NotificationView),
});
export type NotificationPoll = v.InferOutput<typeof NotificationPoll>;

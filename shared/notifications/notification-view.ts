import * as v from 'valibot';
import { NotificationRecord, subjectStatuses } from '../model/notification.ts';

/**
 * A notification as the API answers it (the SDKs' Notification models: the PHP SDK's Notification
 * and NotificationPoll, the TS SDK's Notification and its typed subclasses, whose own fields sit
 * beside the common ones), a page of them and the poll's answer, as schemas for the OpenAPI
 * document and the answer checks. Kept apart from the use cases, so functions carry none of it.
 */

/** Every field of the stored notification, and nothing else: the model declares them once. */
export const NotificationView = v.strictObject({
  ...NotificationRecord.entries,
  // As answered: one of the TS SDK's SubjectStatuses (a stored CANCELLED of old is read as FAILED).
  subjectStatus: v.optional(v.picklist(subjectStatuses)),
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

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { transferNotificationExample } from '../../shared/notifications/examples.ts';
import { NotificationPoll, NotificationView } from '../../shared/notifications/notification-view.ts';
import { NotificationPollRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications/poll in the OpenAPI document. */
export const docs: OperationDocs = {
  request: NotificationPollRequest,
  description:
    "The poll/ack queue (the PHP SDK's `poll`): `count`, how many notifications wait unacknowledged, and `notification`, the oldest of them (by fire date), the same one until it is acknowledged (`POST .../{id}/ack`); no `notification` when none waits. Polling marks nothing read. Another customer's handle answers 403.",
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'The queue.',
      content: {
        'application/json': {
          json: NotificationPoll,
          examples: { waiting: { count: 3, notification: transferNotificationExample }, empty: { count: 0 } },
        },
      },
    },
  },
  errors: ['ConstraintViolationException'],
  examples: { path: { customer: 'demo' } },
  components: { Notification: NotificationView, NotificationPoll },
};

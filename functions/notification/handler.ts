import { endpoint } from '../../shared/http/pipeline.ts';
import { readNotification } from '../../shared/notifications/queue.ts';
import { NotificationRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications/{notificationId}: the notification, marked read. */
export const handler = endpoint({ route: 'notification', request: NotificationRequest }, ({ input, principal }) =>
  readNotification(principal.customer, input.path.customer, input.path.notificationId),
);

import { endpoint } from '../../shared/http/pipeline.ts';
import { acknowledge } from '../../shared/notifications/queue.ts';
import { NotificationAckRequest } from './schema.ts';

/** POST /v2/customers/{customer}/notifications/{notificationId}/ack: 204, the notification leaves the poll queue. */
export const handler = endpoint(
  { route: 'notification-ack', request: NotificationAckRequest },
  ({ input, principal }) => acknowledge(principal.customer, input.path.customer, input.path.notificationId),
  () => ({ status: 204 }),
);

import { endpoint } from '../../shared/http/pipeline.ts';
import { pollNotifications } from '../../shared/notifications/queue.ts';
import { NotificationPollRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications/poll: the number unacknowledged and the oldest of them. */
export const handler = endpoint({ route: 'notification-poll', request: NotificationPollRequest }, ({ input, principal }) =>
  pollNotifications(principal.customer, input.path.customer),
);

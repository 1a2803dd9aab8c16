import { endpoint } from '../../shared/http/pipeline.ts';
import { listNotifications } from '../../shared/notifications/list.ts';
import { NotificationListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications: the caller's notifications, a page at a time. */
export const handler = endpoint({ route: 'notifications', request: NotificationListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listNotifications(principal.customer, input.path.customer, input.query),
);

import * as v from 'valibot';
import { NotificationListQuery } from '../../shared/notifications/list-request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/notifications: paging, order, fields, total, q and filters, each parameter possibly repeated. */
export const NotificationListRequest = v.object({
  path: v.object({ customer: Handle }),
  query: NotificationListQuery,
  body: v.undefined(),
});

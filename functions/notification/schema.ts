import * as v from 'valibot';
import { Handle, PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/notifications/{notificationId}. */
export const NotificationRequest = v.object({
  path: v.object({ customer: Handle, notificationId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

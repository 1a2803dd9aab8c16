import * as v from 'valibot';
import { Handle, PathId } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/notifications/{notificationId}/ack (no body is read). */
export const NotificationAckRequest = v.object({
  path: v.object({ customer: Handle, notificationId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

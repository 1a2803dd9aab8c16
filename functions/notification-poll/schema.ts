import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/notifications/poll. */
export const NotificationPollRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

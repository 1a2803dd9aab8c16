import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** DELETE /v2/customers/{customer}/webhook (no body is read). */
export const WebhookDeleteRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/webhook/rotate (no body is read). */
export const WebhookRotateRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

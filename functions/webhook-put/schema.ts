import * as v from 'valibot';
import { WebhookBody } from '../../shared/notifications/webhook-view.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** PUT /v2/customers/{customer}/webhook with `{"url": "https://..."}`. */
export const WebhookPutRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: WebhookBody,
});

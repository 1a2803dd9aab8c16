import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET (and DELETE, POST .../rotate) /v2/customers/{customer}/webhook: the customer, nothing else. */
export const WebhookRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

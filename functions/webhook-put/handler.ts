import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { registerWebhook } from '../../shared/notifications/webhook.ts';
import { WebhookPutRequest } from './schema.ts';

/** PUT /v2/customers/{customer}/webhook: 201 with the secret when registered, 200 without it when moved to a new URL. */
export const handler = endpoint(
  { route: 'webhook-put', request: WebhookPutRequest, body: jsonBody },
  ({ input, principal }) => registerWebhook(principal, input.path.customer, input.body.url),
  ({ view, created }) => ({ status: created ? 201 : 200, body: view }),
);

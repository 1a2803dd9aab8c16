import { endpoint } from '../../shared/http/pipeline.ts';
import { showWebhook } from '../../shared/notifications/webhook.ts';
import { WebhookRequest } from './schema.ts';

/** GET /v2/customers/{customer}/webhook: the endpoint and its delivery state, without the secret. */
export const handler = endpoint({ route: 'webhook', request: WebhookRequest }, ({ input, principal }) =>
  showWebhook(principal.customer, input.path.customer),
);

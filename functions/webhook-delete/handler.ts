import { endpoint } from '../../shared/http/pipeline.ts';
import { removeWebhook } from '../../shared/notifications/webhook.ts';
import { WebhookDeleteRequest } from './schema.ts';

/** DELETE /v2/customers/{customer}/webhook: 204; deliveries stop. */
export const handler = endpoint(
  { route: 'webhook-delete', request: WebhookDeleteRequest },
  ({ input, principal }) => removeWebhook(principal, input.path.customer),
  () => ({ status: 204 }),
);

import { endpoint } from '../../shared/http/pipeline.ts';
import { rotateWebhookSecret } from '../../shared/notifications/webhook.ts';
import { WebhookRotateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/webhook/rotate: the new secret, answered once; the old one signs for a day more. */
export const handler = endpoint({ route: 'webhook-rotate', request: WebhookRotateRequest }, ({ input, principal }) =>
  rotateWebhookSecret(principal, input.path.customer),
);

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { WebhookView } from '../../shared/notifications/webhook-view.ts';
import { WebhookRequest } from './schema.ts';

/** GET /v2/customers/{customer}/webhook in the OpenAPI document. */
export const docs: OperationDocs = {
  request: WebhookRequest,
  description:
    "The caller's webhook endpoint and its delivery state (the last delivery, the last failure, whether a 410 disabled it), never its secret. 404 when none is registered; another customer's handle answers 403.",
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'The endpoint.',
      content: {
        'application/json': {
          json: WebhookView,
          examples: {
            enabled: {
              url: 'https://hooks.example.net/registrar',
              status: 'ENABLED',
              createdDate: '2026-11-25T18:00:00Z',
              updatedDate: '2026-11-25T18:00:00Z',
              secretCreatedDate: '2026-11-25T18:00:00Z',
              lastDeliveryDate: '2026-11-25T18:05:00Z',
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo' } },
  components: { Webhook: WebhookView },
};

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { WebhookView } from '../../shared/notifications/webhook-view.ts';
import { WebhookRotateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/webhook/rotate in the OpenAPI document. */
export const docs: OperationDocs = {
  request: WebhookRotateRequest,
  description:
    'Issues a new signing secret, answered this once. The previous secret keeps signing beside it for a day (`previousSecretExpiresDate`): each delivery then carries two `v1,` signatures in `webhook-signature`, so a receiver can switch at its own pace. Every secret a rotation answers signs what follows through its overlap, so a rotation while the previous secret still signs answers 400 `ObjectStatusProhibitsOperation` (naming when the overlap ends), and of concurrent rotations exactly one answers a secret. Needs the `MANAGE_WEBHOOK` permission (403 otherwise). 404 when no endpoint is registered.',
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'The endpoint with its new secret.',
      content: {
        'application/json': {
          json: WebhookView,
          examples: {
            rotated: {
              url: 'https://hooks.example.net/registrar',
              status: 'ENABLED',
              secret: 'whsec_3hKq2xwJ8m0Qn1b8Zt9m9b8oUo3vYgJ2uRk8d6QmX1c=',
              createdDate: '2026-11-25T18:00:00Z',
              updatedDate: '2026-11-26T09:00:00Z',
              secretCreatedDate: '2026-11-26T09:00:00Z',
              previousSecretExpiresDate: '2026-11-27T09:00:00Z',
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  examples: { path: { customer: 'demo' } },
  components: { Webhook: WebhookView },
};

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { WebhookView } from '../../shared/notifications/webhook-view.ts';
import { WebhookPutRequest } from './schema.ts';

const registered = {
  url: 'https://hooks.example.net/registrar',
  status: 'ENABLED',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2Ny1rZZg4v0=',
  createdDate: '2026-11-25T18:00:00Z',
  updatedDate: '2026-11-25T18:00:00Z',
  secretCreatedDate: '2026-11-25T18:00:00Z',
};

/** PUT /v2/customers/{customer}/webhook in the OpenAPI document. */
export const docs: OperationDocs = {
  request: WebhookPutRequest,
  description: [
    "An extension of the API (docs/notifications.md): registers the caller's one webhook endpoint, to which every notification is POSTed, signed per the Standard Webhooks specification (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and with the real API's `Signature` header.",
    'The URL must be `https`, without credentials, naming a public host; its addresses are checked again at every delivery (no private, loopback or link-local address, no redirects). A new endpoint answers 201 with its signing secret `whsec_...`, the only time it is shown (rotate to get a new one). An existing endpoint moves to the URL and is enabled again: 200, its secret unchanged and not shown.',
  ].join('\n\n'),
  tags: ['Notifications'],
  responses: {
    '201': {
      description: 'Registered: the endpoint with its secret, shown this once.',
      content: { 'application/json': { json: WebhookView, examples: { registered } } },
    },
    '200': {
      description: 'Moved to the URL and enabled; the secret is unchanged.',
      content: { 'application/json': { json: WebhookView, examples: { moved: { ...registered, secret: undefined } } } },
    },
  },
  errors: ['ConstraintViolationException'],
  examples: {
    path: { customer: 'demo' },
    body: { register: { summary: 'An https endpoint', value: { url: 'https://hooks.example.net/registrar' } } },
  },
  components: { Webhook: WebhookView },
};

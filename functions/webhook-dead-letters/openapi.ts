import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DeadLetterList, DeadLetterView } from '../../shared/notifications/webhook-view.ts';
import { DeadLettersRequest } from './schema.ts';

/** GET /v2/customers/{customer}/webhook/dead-letters in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DeadLettersRequest,
  description:
    "The notifications the caller's webhook never took (docs/notifications.md): after the last of 10 attempts over about three days, after a 410 Gone, or while the endpoint was disabled or removed. Oldest first, at most 100 (redeliver some to see the next). Each is still in the notification queue (`GET .../notifications/{notificationId}`). Another customer's handle answers 403.",
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'The dead letters.',
      content: {
        'application/json': {
          json: DeadLetterList,
          examples: {
            one: { entities: [{ notificationId: 1002003, attempts: 10, deadDate: '2026-11-28T20:00:00Z', lastFailure: 'HTTP 500' }] },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException'],
  examples: { path: { customer: 'demo' } },
  components: { DeadLetter: DeadLetterView },
};

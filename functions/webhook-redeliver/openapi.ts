import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { RedeliverRequest } from './schema.ts';

/** POST .../webhook/dead-letters/{notificationId}/redeliver in the OpenAPI document. */
export const docs: OperationDocs = {
  request: RedeliverRequest,
  description:
    "Puts a dead letter back into the retry lane, due at once, with a fresh set of 10 attempts (the retry job takes it within a minute). The endpoint must be enabled again first (PUT) if a 410 disabled it, or it dies again. 404 when there is no such dead letter; another customer's handle answers 403.",
  tags: ['Notifications'],
  responses: { '202': { description: 'Queued for delivery.' } },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo', notificationId: '1002003' } },
};

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { WebhookDeleteRequest } from './schema.ts';

/** DELETE /v2/customers/{customer}/webhook in the OpenAPI document. */
export const docs: OperationDocs = {
  request: WebhookDeleteRequest,
  description:
    "Removes the caller's webhook endpoint: deliveries stop (notifications stay in the poll queue). 404 when none is registered; another customer's handle answers 403.",
  tags: ['Notifications'],
  responses: { '204': { description: 'Removed.' } },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo' } },
};

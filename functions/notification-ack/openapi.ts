import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { NotificationAckRequest } from './schema.ts';

/** POST /v2/customers/{customer}/notifications/{notificationId}/ack in the OpenAPI document. */
export const docs: OperationDocs = {
  request: NotificationAckRequest,
  description:
    "Acknowledges a notification of the caller: `acknowledgeDate` (and `readDate`, if unread) are set the first time, and it leaves the poll queue, so the next poll answers the next one. Acknowledging again changes nothing and answers 204 again. A body, if any, is not read. Another customer's handle answers 403; an unknown id 404.",
  tags: ['Notifications'],
  responses: { '204': { description: 'Acknowledged.' } },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo', notificationId: '1002003' } },
};

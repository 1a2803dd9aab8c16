import { idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactDeleteRequest } from './schema.ts';

/** contact-delete in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactDeleteRequest,
  description: [
    "Deletes a contact of the caller. Refused (400 ObjectStatusProhibitsOperation, naming what uses it) while a domain of the caller names it as registrant or contact, or an open process (a transfer in progress) will. Another customer's contact answers like a missing one: 404.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '204': { description: 'Deleted.', headers: [{ name: 'Idempotent-Replayed' }] },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKeyHeader],
  examples: { path: { customer: 'demo', handle: 'demo-webshop' } },
};

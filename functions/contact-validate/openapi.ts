import { ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample, idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactValidateRequest } from './schema.ts';

/** contact-validate in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactValidateRequest,
  description: [
    "Validates a contact for `categories` (`General`, `IisNu`, `IisSe`, `Esnic`, `Nominet`, `DkHostmaster`). The sandbox registries validate at once: each category's validation is recorded with the time and a version one above its last.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'Validated: the contact with its validations.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: {
            contact: {
              ...contactExample,
              validations: [{ validatedOn: '2026-11-27T18:00:00Z', version: 1, category: 'General' }],
              updatedDate: '2026-11-27T18:00:00Z',
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-registrant' },
    body: { general: { summary: 'The general validation', value: { categories: ['General'] } } },
  },
};

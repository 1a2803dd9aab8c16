import { ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample, idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactSplitRequest } from './schema.ts';

/** contact-split in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactSplitRequest,
  description: [
    "Copies a contact of the caller to `newHandle`, so the two can change apart (the WHMCS module splits a contact a registry refused to update). With `registries`, the copy keeps only those registries' properties. `newHandle` in use: 409 ObjectExists; counted against the address book's limit.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '201': {
      description: 'Split: the new contact.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: { contact: { ...contactExample, handle: 'demo-registrant-2', createdDate: '2026-11-27T18:00:00Z' } },
        },
      },
    },
  },
  pathObject: true,
  existsIsConflict: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectExists'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-registrant' },
    body: { split: { summary: 'A copy for SIDN', value: { newHandle: 'demo-registrant-2', registries: ['sidn'] } } },
  },
};

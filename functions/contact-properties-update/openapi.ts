import { ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample, idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactPropertiesUpdateRequest } from './schema.ts';

/** contact-properties-update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactPropertiesUpdateRequest,
  description: [
    "Changes a contact's properties for one registry (those sent; the others are kept), checked as the add checks them. A registry the contact has no properties for yet: 400 ObjectStatusProhibitsOperation (add them first). `properties: null` (as the PHP SDK sends an empty map) changes nothing.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'Changed: the contact with its properties.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: {
            contact: {
              ...contactExample,
              properties: { ...contactExample.properties, sidn: { legalForm: 'NV' } },
              updatedDate: '2026-11-27T18:00:00Z',
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-registrant', registry: 'sidn' },
    body: { sidn: { summary: 'Another legal form', value: { properties: { legalForm: 'NV' } } } },
  },
};

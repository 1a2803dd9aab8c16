import { ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample, idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactPropertiesAddRequest } from './schema.ts';

/** contact-properties-add in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactPropertiesAddRequest,
  description: [
    "Adds a contact's properties for one registry, checked against the registry's `contactProperties` (GET /v2/providers/REGISTRY/{name}/info): an unknown property or a value outside its list is a 400 naming `properties.<name>`; a mandatory one left out is a 400 unless `intendedUsage` is ADMIN, BILLING or TECH. A registry the contact has properties for already: 400 ObjectExists (change them with `.../{registry}/update`). An unknown registry: 404.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'Added: the contact with its properties.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: {
            contact: {
              ...contactExample,
              properties: { ...contactExample.properties, nominet: { ukContactType: 'FCORP' } },
              registries: ['nominet', 'sidn'],
              updatedDate: '2026-11-27T18:00:00Z',
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectExists', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-admin', registry: 'nominet' },
    body: {
      nominet: { summary: 'Nominet registrant type', value: { properties: { ukContactType: 'FCORP' }, intendedUsage: 'REGISTRANT' } },
    },
  },
};

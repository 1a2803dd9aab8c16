import * as v from 'valibot';
import { ContactSelection, ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactRequest } from './schema.ts';

/** GET /v2/customers/{customer}/contacts/{handle} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactRequest,
  description: [
    'A contact of the caller (docs/contacts.md): every field the official SDKs read, `brand` and `createdDate` included; `properties` per registry. `fields` limits what it carries.',
    "Another customer's contact answers exactly like a missing one: 404 ObjectDoesNotExist.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'The contact.',
      content: { 'application/json': { json: v.union([ContactView, ContactSelection]), examples: { contact: contactExample } } },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo', handle: 'demo-registrant' } },
};

import { ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample, idempotencyKeyHeader } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactUpdateRequest } from './schema.ts';

/** contact-update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactUpdateRequest,
  description: [
    'Changes a contact of the caller: only the fields sent change; an empty string removes `organization`, `state` or `fax` (as the WHMCS module sends `organization: ""`). The fields follow the create\'s rules. `designatedAgent` is accepted (no registry of this service asks for a change-of-registrant approval).',
    "`customer` and `handle` in the body must be the path's; `null` is an absent field. Another customer's contact answers like a missing one: 404.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'Changed: the contact as it now is.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: { contact: { ...contactExample, organization: undefined, updatedDate: '2026-11-27T18:00:00Z' } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-admin' },
    body: {
      organization: { summary: 'Remove the organization, as WHMCS does', value: { organization: '' } },
      email: { summary: 'A new e-mail address', value: { email: 'hostmaster@demo-hosting.example' } },
    },
  },
};

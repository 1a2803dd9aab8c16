import { ContactView } from '../../shared/contacts/contact-view.ts';
import { idempotencyKeyHeader, newContactBody } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactCreateRequest } from './schema.ts';

/** contact-create in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactCreateRequest,
  description: [
    "Creates a contact in the caller's address book (docs/contacts.md). Required: `name` (1 to 255), `addressLine` (1 to 3 lines), `postalCode` (at most 16), `city`, `country` (ISO 3166-1 alpha-2), `email`, `voice` (E.164a: `+31.201234567`). Optional: `brand` (default `default`), `organization`, `state`, `fax`, `disclosedFields`.",
    "As the PHP SDK sends them, `customer` and `handle` may be in the body (they must be the path's) and `null` stands for an absent optional field. A handle in use: 409 ObjectExists. An address book holds at most 20000 contacts (then 400 ValidationError). Another customer's address book: 403.",
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '201': {
      description: 'Created: the new contact.',
      headers: [{ name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ContactView,
          examples: { contact: { customer: 'demo', ...newContactBody, brand: 'default', createdDate: '2026-11-27T18:00:00Z' } },
        },
      },
    },
  },
  existsIsConflict: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectExists'],
  requestHeaders: [idempotencyKeyHeader],
  examples: {
    path: { customer: 'demo', handle: 'demo-webshop' },
    body: {
      typescript: { summary: 'As the TypeScript SDK sends it', value: newContactBody },
      php: {
        summary: 'As the PHP SDK sends it: customer and handle in the body, null for unset fields',
        value: { customer: 'demo', ...newContactBody, brand: null, state: null, fax: null },
      },
    },
  },
};

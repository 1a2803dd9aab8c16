import { ContactPage, ContactView } from '../../shared/contacts/contact-view.ts';
import { contactExample } from '../../shared/contacts/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ContactListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/contacts in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ContactListRequest,
  description: [
    "The caller's contacts (docs/contacts.md): `{entities, pagination: {limit, offset, total}}`. Only the caller's own customer: another handle answers 403.",
    'Paging: `limit` (default 10, at most 100; `limit=0` answers the total only) and `offset` (at most 10000). `order`: `handle` (the default) or `createdDate`, `-` for descending. `fields` limits what each entity carries. `pagination.total` is counted unless `total=false`. `export=true` answers every match at once.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`, all applying. Fields: `handle`, `brand`, `name`, `organization`, `addressLine`, `postalCode`, `city`, `state`, `country`, `email`, `voice`, `fax` (eq, ne, in, like, null, not_null), `createdDate`, `updatedDate` (dates compare as a day or a time). `organization:null=` finds the contacts without an organization. `q` finds contacts whose handle, name, organization or e-mail contains the text.',
    'Cost: never a scan. Without filters the total is a kept count and `offset` is skipped over keys; an exact `handle` reads one contact; other filters read the address book in order, at most 20000 contacts (the most an address book holds).',
  ].join('\n\n'),
  tags: ['Contacts'],
  responses: {
    '200': {
      description: 'One page of contacts.',
      content: {
        'application/json': {
          json: ContactPage,
          examples: { page: { entities: [contactExample], pagination: { limit: 10, offset: 0, total: 4 } } },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { path: { customer: 'demo' }, query: { 'organization:null': '' } },
  components: { Contact: ContactView, ContactPage },
};

import * as v from 'valibot';
import { ContactListQuery } from '../../shared/contacts/list-request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/contacts: paging, order, fields, total, q, export and filters, each parameter possibly repeated. */
export const ContactListRequest = v.object({
  path: v.object({ customer: Handle }),
  query: ContactListQuery,
  body: v.undefined(),
});

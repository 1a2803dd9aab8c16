import * as v from 'valibot';
import { ContactFieldsQuery } from '../../shared/contacts/list-request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/contacts/{handle}[?fields=...]. */
export const ContactRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: ContactFieldsQuery,
  body: v.undefined(),
});

import { listContacts } from '../../shared/contacts/list-contacts.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/contacts: the caller's contacts, a page at a time. */
export const handler = endpoint({ route: 'contacts', request: ContactListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listContacts(principal.customer, input.path.customer, input.query),
);

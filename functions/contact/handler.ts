import { getContact } from '../../shared/contacts/get.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactRequest } from './schema.ts';

/** GET /v2/customers/{customer}/contacts/{handle}: one contact of the caller. */
export const handler = endpoint({ route: 'contact', request: ContactRequest, repeatedQuery: true }, ({ input, principal }) =>
  getContact(principal.customer, input.path.customer, input.path.handle, input.query.fields),
);

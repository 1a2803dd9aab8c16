import { deleteContact } from '../../shared/contacts/delete.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactDeleteRequest } from './schema.ts';

/** DELETE /v2/customers/{customer}/contacts/{handle}: 204 once deleted. */
export const handler = endpoint(
  { route: 'contact-delete', request: ContactDeleteRequest, idempotency: idempotency('contact-delete') },
  ({ input, principal }, commitWith) => deleteContact(principal.customer, input.path.customer, input.path.handle, commitWith),
  () => ({ status: 204 }),
);

import { createContact } from '../../shared/contacts/create.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactCreateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}: 201 with the new contact. */
export const handler = endpoint(
  { route: 'contact-create', request: ContactCreateRequest, body: jsonBody, idempotency: idempotency('contact-create') },
  ({ input, principal }, commitWith) => createContact(principal.customer, input.path.customer, input.path.handle, input.body, commitWith),
  (view) => ({ status: 201, body: view }),
);

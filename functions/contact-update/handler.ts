import { updateContact } from '../../shared/contacts/update.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactUpdateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/update: 200 with the contact as it now is. */
export const handler = endpoint(
  { route: 'contact-update', request: ContactUpdateRequest, body: jsonBody, idempotency: idempotency('contact-update') },
  ({ input, principal }, commitWith) => updateContact(principal.customer, input.path.customer, input.path.handle, input.body, commitWith),
  (view) => ({ status: 200, body: view }),
);

import { validateContact } from '../../shared/contacts/validate.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactValidateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/validate: 200 with the contact and its validations. */
export const handler = endpoint(
  { route: 'contact-validate', request: ContactValidateRequest, body: jsonBody, idempotency: idempotency('contact-validate') },
  ({ input, principal }, commitWith) => validateContact(principal.customer, input.path.customer, input.path.handle, input.body, commitWith),
  (view) => ({ status: 200, body: view }),
);

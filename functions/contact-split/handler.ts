import { splitContact } from '../../shared/contacts/split.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactSplitRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/split: 201 with the new contact. */
export const handler = endpoint(
  { route: 'contact-split', request: ContactSplitRequest, body: jsonBody, idempotency: idempotency('contact-split') },
  ({ input, principal }, commitWith) => splitContact(principal.customer, input.path.customer, input.path.handle, input.body, commitWith),
  (view) => ({ status: 201, body: view }),
);

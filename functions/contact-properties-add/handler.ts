import { addProperties } from '../../shared/contacts/properties.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactPropertiesAddRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/{registry}: 200 with the contact and its properties for the registry. */
export const handler = endpoint(
  {
    route: 'contact-properties-add',
    request: ContactPropertiesAddRequest,
    body: jsonBody,
    idempotency: idempotency('contact-properties-add'),
  },
  ({ input, principal }, commitWith) =>
    addProperties(principal.customer, input.path.customer, input.path.handle, input.path.registry, input.body, commitWith),
);

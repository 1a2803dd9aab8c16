import { updateProperties } from '../../shared/contacts/properties.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ContactPropertiesUpdateRequest } from './schema.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/{registry}/update: 200 with the contact and its changed properties. */
export const handler = endpoint(
  {
    route: 'contact-properties-update',
    request: ContactPropertiesUpdateRequest,
    body: jsonBody,
    idempotency: idempotency('contact-properties-update'),
  },
  ({ input, principal }, commitWith) =>
    updateProperties(principal.customer, input.path.customer, input.path.handle, input.path.registry, input.body, commitWith),
);

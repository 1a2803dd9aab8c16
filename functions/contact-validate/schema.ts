import * as v from 'valibot';
import { ValidateContactBody } from '../../shared/contacts/request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/validate. */
export const ContactValidateRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: v.object({}),
  body: ValidateContactBody,
});

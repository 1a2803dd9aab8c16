import * as v from 'valibot';
import { UpdateContactBody } from '../../shared/contacts/request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/update. */
export const ContactUpdateRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: v.object({}),
  body: UpdateContactBody,
});

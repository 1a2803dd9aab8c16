import * as v from 'valibot';
import { CreateContactBody } from '../../shared/contacts/request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}. */
export const ContactCreateRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: v.object({}),
  body: CreateContactBody,
});

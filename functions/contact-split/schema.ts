import * as v from 'valibot';
import { SplitContactBody } from '../../shared/contacts/request.ts';
import { Handle } from '../../shared/schemas/primitives.ts';

/** POST /v2/customers/{customer}/contacts/{handle}/split. */
export const ContactSplitRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: v.object({}),
  body: SplitContactBody,
});

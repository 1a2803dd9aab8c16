import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** DELETE /v2/customers/{customer}/contacts/{handle} (a body is not read). */
export const ContactDeleteRequest = v.object({
  path: v.object({ customer: Handle, handle: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

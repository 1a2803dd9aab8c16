import * as v from 'valibot';
import { Handle } from '../../shared/schemas/primitives.ts';

/** GET /v2/customers/{customer}/webhook/dead-letters. */
export const DeadLettersRequest = v.object({
  path: v.object({ customer: Handle }),
  query: v.object({}),
  body: v.undefined(),
});

import { endpoint } from '../../shared/http/pipeline.ts';
import { deadLetters } from '../../shared/notifications/dead-letters.ts';
import { DeadLettersRequest } from './schema.ts';

/** GET /v2/customers/{customer}/webhook/dead-letters: notifications the endpoint never took. */
export const handler = endpoint({ route: 'webhook-dead-letters', request: DeadLettersRequest }, ({ input, principal }) =>
  deadLetters(principal.customer, input.path.customer),
);

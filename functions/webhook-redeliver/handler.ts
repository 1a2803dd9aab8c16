import { endpoint } from '../../shared/http/pipeline.ts';
import { redeliver } from '../../shared/notifications/dead-letters.ts';
import { RedeliverRequest } from './schema.ts';

/** POST .../webhook/dead-letters/{notificationId}/redeliver: 202, the dead letter is back in the retry lane, due at once. */
export const handler = endpoint(
  { route: 'webhook-redeliver', request: RedeliverRequest },
  ({ input, principal }) => redeliver(principal.customer, input.path.customer, input.path.notificationId),
  () => ({ status: 202 }),
);

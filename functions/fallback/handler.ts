import { MethodNotAllowed, NotFound } from '../../shared/errors.ts';
import { unauthenticated } from '../../shared/http/pipeline.ts';
import { matchRoute } from '../../shared/routes.ts';

/**
 * Answers every request no route takes: 405 with `Allow` for a known path with another method,
 * 404 `NotFound` otherwise (contract section 2). Mounted on `/{proxy+}` and on each route's path.
 */
export const handler = unauthenticated('fallback', async (event) => {
  const match = matchRoute(event.httpMethod, event.path);
  if (match.kind === 'method-not-allowed') throw new MethodNotAllowed(event.httpMethod, match.allow);
  throw new NotFound(event.path);
});

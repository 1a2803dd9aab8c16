import { health } from '../../shared/health/health.ts';
import { unauthenticated } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { now } from '../../shared/time.ts';

/**
 * GET /v2/health, without authentication: whether the table, DNS and the scheduled jobs are up
 * (shared/health/health.ts), one Query; 503 when the table does not answer. Never cached.
 */
export const handler = unauthenticated('health', async () => {
  const view = await health(now());
  return { ...ok(view, { 'Cache-Control': 'no-store' }), status: view.status === 'DOWN' ? 503 : 200 };
});

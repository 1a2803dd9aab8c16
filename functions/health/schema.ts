import * as v from 'valibot';

/** GET /v2/health: nothing to pass. */
export const HealthRequest = v.object({ path: v.object({}), query: v.object({}), body: v.undefined() });

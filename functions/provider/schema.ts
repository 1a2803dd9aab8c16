import * as v from 'valibot';
import { ProviderName } from '../../shared/schemas/primitives.ts';

/** GET /v2/providers/{name} (and /v2/providers/REGISTRY/{name}): the provider name, nothing else. */
export const ProviderRequest = v.object({
  path: v.object({ name: ProviderName }),
  query: v.object({}),
  body: v.undefined(),
});

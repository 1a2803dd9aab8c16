import * as v from 'valibot';
import { ProviderName } from '../../shared/schemas/primitives.ts';

/** GET /v2/providers/REGISTRY/{name}/info: the provider name in the path, nothing else. */
export const ProviderInfoRequest = v.object({
  path: v.object({ name: ProviderName }),
  query: v.object({}),
  body: v.undefined(),
});

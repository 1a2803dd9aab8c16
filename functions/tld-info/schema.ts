import * as v from 'valibot';
import { Extension } from '../../shared/schemas/primitives.ts';

/** GET /v2/tlds/{tld}/info: the extension (case-insensitive), nothing else. */
export const TldInfoRequest = v.object({
  path: v.object({ tld: Extension }),
  query: v.object({}),
  body: v.undefined(),
});

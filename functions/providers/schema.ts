import * as v from 'valibot';
import { catalogueQuery } from '../../shared/schemas/listing.ts';

/** GET /v2/providers: a page of the registries (limit, offset, q, order by name, total). */
export const ProviderListRequest = v.object({
  path: v.object({}),
  query: v.object(catalogueQuery('name')),
  body: v.undefined(),
});

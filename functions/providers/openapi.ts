import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { Provider } from '../../shared/registry/provider-view.ts';
import { cataloguePage } from '../../shared/schemas/listing.ts';
import { ProviderListRequest } from './schema.ts';

/** GET /v2/providers in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProviderListRequest,
  description:
    "The registries and the TLDs each serves (the TS SDK's `provider.list`), a page at a time: `limit` (1 to 100, default 10), `offset`, `order` (`name` or `-name`), `q` (a case-insensitive search of names and TLDs) and `total` (`pagination.total` is counted unless `total=false`). Configuration, the same for every authenticated caller. Other listing parameters (filters, `fields`, `export`) are ignored.",
  tags: ['Providers'],
  responses: {
    '200': {
      description: 'A page of registries.',
      content: {
        'application/json': {
          json: cataloguePage(Provider),
          examples: {
            page: {
              entities: [
                { name: 'nominet', tlds: ['uk', 'co.uk'] },
                { name: 'sidn', tlds: ['nl'] },
              ],
              pagination: { limit: 2, offset: 0, total: 3 },
            },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException'],
  examples: { query: { limit: '10', order: 'name' } },
  components: { Provider },
};

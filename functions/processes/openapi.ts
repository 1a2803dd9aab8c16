import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessPage, process501 } from '../../shared/processes/process-view.ts';
import { ProcessListRequest } from './schema.ts';

/** GET /v2/processes in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessListRequest,
  description: [
    "The caller's processes, newest first: `{entities, pagination: {limit, offset, total}}`.",
    'Paging: `limit` (default 10, at most 100) and `offset` (at most 10000). `order`: `id`/`createdDate` oldest first, `-id`/`-createdDate` newest first (ids are given in creation order). `fields` limits what each entity carries. `total=true` counts every match (it costs reads, so only when asked).',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`; a parameter may repeat, and every filter applies. Fields: `status`, `type`, `action`, `identifier`, `createdDate`, `detailStatus`. Matchers: `ne`, `in` (comma-separated values), `like` (`*` for any run of characters, case-insensitive), `gt`, `gte`, `lt`, `lte` (createdDate, as a day `yyyy-MM-dd` or a time), `null`, `not_null`. `q` finds processes whose identifier contains the text. `detailStatus=SSL_REQUIRES_ATTENTION` lists exactly the certificate requests whose info says `requiresAttention: true`.',
    "Cost: the table is never scanned. An exact `identifier` filter reads only that identifier's processes, an exact `status` (or a `detailStatus`) only that status's, from an index; other filters are checked on what the index returns. A request reads at most 20000 items; a broader one answers 400 ValidationError saying how to narrow it. An unknown filter field or matcher: 400 ConstraintViolationException.",
  ].join('\n\n'),
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'One page of processes.',
      content: {
        'application/json': {
          json: ProcessPage,
          examples: {
            needingAttention: { entities: [process501], pagination: { limit: 10, offset: 0, total: 1 } },
            someFields: {
              entities: [
                { id: 502, type: 'acme' },
                { id: 501, type: 'certificate' },
              ],
              pagination: { limit: 10, offset: 0 },
            },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { query: { detailStatus: ['SSL_REQUIRES_ATTENTION'] } },
  components: { ProcessPage },
};

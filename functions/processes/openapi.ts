import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessPage, process501 } from '../../shared/processes/process-view.ts';
import { ProcessListRequest } from './schema.ts';

/** GET /v2/processes in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessListRequest,
  description: [
    "The caller's processes, newest first: `{entities, pagination: {limit, offset, total}}`; `total` is counted by default (`total=false` leaves it out).",
    'Paging: `limit` (default 10, at most 100; `0` answers only the count) and `offset` (at most 10000). `order` (repeatable): `id`/`createdDate` oldest first, `-id`/`-createdDate` newest first (ids are given in creation order, so the first key decides). `fields` limits what each entity carries. `export=true` answers every match in one (compressed) answer, with `id`, `type`, `action`, `identifier` and `status` unless `fields` names others; it refuses `limit` and `offset`, and an export of more than 20000 processes answers 400 ValidationError saying how to narrow it.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`; a parameter may repeat, and every filter applies. Fields: `status`, `type`, `action`, `identifier`, `createdDate`, `detailStatus`. Matchers: `ne`, `in` (comma-separated values), `like` (`*` for any run of characters, case-insensitive), `gt`, `gte`, `lt`, `lte` (createdDate, as a day `yyyy-MM-dd` or a time), `null`, `not_null`. `q` finds processes whose identifier, type, action, status or detailStatus contains the text (case-insensitive). `detailStatus=SSL_REQUIRES_ATTENTION` lists exactly the certificate requests whose info says `requiresAttention: true`.',
    "Cost: the table is never scanned. `total` comes from counts kept with every process write for no filter and for one filter on `status`, `type`, `action` or `detailStatus`; an exact `identifier` is counted on that identifier's own listing. A page skips its `offset` over a keys-only index and reads only its own processes when an index answers every filter (none, an exact status or an exact identifier); other filters are checked on what the index returns. Any other request reads at most 20000 items; a broader one answers 400 ValidationError saying how to narrow it. An unknown parameter, filter field or matcher: 400 ConstraintViolationException naming it.",
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
              pagination: { limit: 10, offset: 0, total: 2 },
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

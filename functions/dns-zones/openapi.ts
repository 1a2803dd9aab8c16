import { listedZoneExample } from '../../shared/dns/examples.ts';
import { ZoneListEntry, ZonePage } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ZoneListRequest } from './schema.ts';

/** GET /v2/dns/zones in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ZoneListRequest,
  description: [
    "The caller's DNS zones (docs/zones-api.md), by name: `{entities, pagination: {limit, offset, total}}`. A listed zone carries no `records`: read the zone by its id for them.",
    'Paging: `limit` (default 10, at most 100; `limit=0` answers the total only) and `offset` (at most 10000). `order`: `name` or `-name`. `fields` limits what each entity carries; `export=true` answers every match.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`, all applying. Fields: `id`, `name`, `service`, `template`, `dnssec`, `managed`, `createdDate`, `updatedDate`. `q` finds zones whose name or template contains the text.',
    'Cost: never a scan; without filters the count and `offset` are read over keys only; with filters a request reads at most as many zones as a customer may hold (1,000).',
  ].join('\n\n'),
  tags: ['Zones'],
  responses: {
    '200': {
      description: 'One page of zones.',
      content: {
        'application/json': {
          json: ZonePage,
          examples: { page: { entities: [listedZoneExample], pagination: { limit: 10, offset: 0, total: 1 } } },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { query: { service: ['BASIC'] } },
  components: { ZoneListEntry, ZonePage },
};

import { listZones } from '../../shared/dns/list-zones.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ZoneListRequest } from './schema.ts';

/** GET /v2/dns/zones: the caller's zones, a page at a time. */
export const handler = endpoint({ route: 'dns-zones', request: ZoneListRequest, repeatedQuery: true }, ({ input, principal }) =>
  listZones(principal.customer, input.query),
);

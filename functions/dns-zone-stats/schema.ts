import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/dns/zones/{zoneId}/stats: the zone id, nothing else. */
export const DnsZoneStatsRequest = v.object({
  path: v.object({ zoneId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

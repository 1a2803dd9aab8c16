import { zoneStats } from '../../shared/dns/zone-stats.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { DnsZoneStatsRequest } from './schema.ts';

/** GET /v2/dns/zones/{zoneId}/stats: a zone's query counts, as the DNS provider counts them. */
export const handler = endpoint(
  { route: 'dns-zone-stats', request: DnsZoneStatsRequest },
  ({ input, principal }) => zoneStats(principal.customer, input.path.zoneId),
  (stats) => ok(stats),
);

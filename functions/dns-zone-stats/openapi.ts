import { ZoneStatsView } from '../../shared/dns/zone-stats-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DnsZoneStatsRequest } from './schema.ts';

/** GET /v2/dns/zones/{zoneId}/stats in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DnsZoneStatsRequest,
  description:
    "A DNS zone's query counts (the PHP client's dnsZones->statistics, the TypeScript client's dnsZone.stats): a list of days with `qcount` (queries answered for the zone's names) and `nxcount` (of those, answered NXDOMAIN). With PowerDNS the list holds today, counting the zone's share of the last 10,000 queries the server answered (its query ring); Route 53 and the sandbox keep no counts an API reads, and the list is empty. Another customer's zone answers like a missing one: 404.",
  tags: ['Zones'],
  responses: {
    '200': {
      description: 'The counts.',
      content: {
        'application/json': {
          json: ZoneStatsView,
          examples: {
            powerdns: { queries: [{ date: '2026-03-02', qcount: 412, nxcount: 9 }] },
            'route53 or sandbox': { queries: [] },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ProviderUnavailable'],
  examples: { path: { zoneId: '101' } },
};

import { demoZoneExample } from '../../shared/dns/examples.ts';
import { ZoneView } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DnsZoneRequest } from './schema.ts';

/** GET /v2/dns/zones/{zoneId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DnsZoneRequest,
  description:
    "A DNS zone of the caller by its id (the SDKs' dnsZones->get), as `GET /v2/domains/{domainName}/zone` answers a domain's: settings, SOA timers, `defaultRecords`, `records`, and with a DNS provider `dns` (whether it serves the zone as shown). Its ETag starts with the zone's revision (`\"r12.<hash>\"`): send it as `If-Match` on the next update or delete. Another customer's zone answers like a missing one: 404.",
  tags: ['Zones'],
  responses: {
    '200': { description: 'The zone.', content: { 'application/json': { json: ZoneView, examples: { 'demo-shop.nl': demoZoneExample } } } },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { zoneId: '101' } },
};

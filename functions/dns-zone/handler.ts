import { zoneById } from '../../shared/dns/get-zone.ts';
import { zoneVersion } from '../../shared/dns/zone.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { ok } from '../../shared/http/response.ts';
import { DnsZoneRequest } from './schema.ts';

/** GET /v2/dns/zones/{zoneId}: a zone of the caller by id; its ETag names its revision (`If-Match` of a write). */
export const handler = endpoint(
  { route: 'dns-zone', request: DnsZoneRequest },
  ({ input, principal }) => zoneById(principal.customer, input.path.zoneId),
  (zone) => ({ ...ok(zone.view), version: zoneVersion(zone.revision) }),
);

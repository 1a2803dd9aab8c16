import { updateZone } from '../../shared/dns/update-zone.ts';
import { zoneVersion } from '../../shared/dns/zone.ts';
import type { VersionedZone } from '../../shared/dns/zone-view.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint, versionsOf } from '../../shared/http/pipeline.ts';
import { UpdateDnsZoneRequest } from './schema.ts';

/** POST /v2/dns/zones/{zoneId}/update: 200 with the zone as changed; If-Match and Idempotency-Key supported. */
export const handler = endpoint(
  { route: 'dns-zone-update', request: UpdateDnsZoneRequest, body: jsonBody, idempotency: idempotency('zone-update') },
  ({ input, principal, headers }, commitWith) =>
    updateZone(principal.customer, { id: input.path.zoneId }, input.body, versionsOf(headers['if-match']), commitWith),
  (zone: VersionedZone) => ({ status: 200, body: zone.view, headers: { ETag: `"${zoneVersion(zone.revision)}"` } }),
);

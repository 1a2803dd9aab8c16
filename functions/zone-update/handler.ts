import { updateZone } from '../../shared/dns/update-zone.ts';
import { zoneVersion } from '../../shared/dns/zone.ts';
import type { VersionedZone } from '../../shared/dns/zone-view.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint, versionsOf } from '../../shared/http/pipeline.ts';
import { UpdateDomainZoneRequest } from './schema.ts';

/** POST /v2/domains/{domainName}/zone/update: the zone of a domain in the caller's account, changed; If-Match and Idempotency-Key supported. */
export const handler = endpoint(
  { route: 'zone-update', request: UpdateDomainZoneRequest, body: jsonBody, idempotency: idempotency('zone-update') },
  ({ input, principal, headers }, commitWith) =>
    updateZone(principal.customer, { domainName: input.path.domainName }, input.body, versionsOf(headers['if-match']), commitWith),
  (zone: VersionedZone) => ({ status: 200, body: zone.view, headers: { ETag: `"${zoneVersion(zone.revision)}"` } }),
);

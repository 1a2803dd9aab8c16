import { createZone } from '../../shared/dns/create-zone.ts';
import { zoneVersion } from '../../shared/dns/zone.ts';
import type { VersionedZone } from '../../shared/dns/zone-view.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { CreateZoneRequest } from './schema.ts';

/** POST /v2/dns/zones: 201 with the new zone; Idempotency-Key supported. */
export const handler = endpoint(
  { route: 'dns-zone-create', request: CreateZoneRequest, body: jsonBody, idempotency: idempotency('zone-create') },
  ({ input, principal }, commitWith) => createZone(principal.customer, input.body, commitWith),
  (zone: VersionedZone) => ({ status: 201, body: zone.view, headers: { ETag: `"${zoneVersion(zone.revision)}"` } }),
);

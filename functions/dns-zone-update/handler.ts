import { updateZone } from '../../shared/dns/update-zone.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint, versionsOf } from '../../shared/http/pipeline.ts';
import { cleanupDeadline, zoneWriteAnswer } from '../../shared/http/zone-answer.ts';
import { UpdateDnsZoneRequest } from './schema.ts';

/** POST /v2/dns/zones/{zoneId}/update[?quote=true]: 200 with the zone as changed; If-Match and Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'dns-zone-update',
    request: UpdateDnsZoneRequest,
    body: jsonBody,
    idempotency: idempotency('zone-update', (input: UpdateDnsZoneRequest) => input.query.quote !== true),
  },
  ({ input, principal, headers, remainingMs }, commitWith) =>
    updateZone(
      principal,
      { id: input.path.zoneId },
      input.body,
      versionsOf(headers['if-match']),
      commitWith,
      input.query.quote === true,
      cleanupDeadline(remainingMs),
    ),
  zoneWriteAnswer(200),
);

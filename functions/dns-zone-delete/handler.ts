import { deleteZone } from '../../shared/dns/delete-zone.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint, versionsOf } from '../../shared/http/pipeline.ts';
import { cleanupDeadline } from '../../shared/http/zone-answer.ts';
import { DeleteDnsZoneRequest } from './schema.ts';

/** DELETE /v2/dns/zones/{zoneId}: 204; the zone leaves the table and, within a second, DNS. If-Match and Idempotency-Key supported. */
export const handler = endpoint(
  { route: 'dns-zone-delete', request: DeleteDnsZoneRequest, idempotency: idempotency('zone-delete') },
  ({ input, principal, headers, remainingMs }, commitWith) =>
    deleteZone(principal.customer, input.path.zoneId, versionsOf(headers['if-match']), commitWith, cleanupDeadline(remainingMs)),
  () => ({ status: 204 }),
);

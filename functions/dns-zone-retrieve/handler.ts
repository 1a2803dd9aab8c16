import { retrieveZone } from '../../shared/dns/retrieve-zone.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { cleanupDeadline } from '../../shared/http/zone-answer.ts';
import { DnsZoneRetrieveRequest } from './schema.ts';

/** POST /v2/dns/zones/{zoneId}/retrieve: 204; the zone's records are replaced by its hidden master's (AXFR), served within a second. */
export const handler = endpoint(
  { route: 'dns-zone-retrieve', request: DnsZoneRetrieveRequest, idempotency: idempotency('zone-retrieve') },
  ({ input, principal, remainingMs }, commitWith) =>
    retrieveZone(principal.customer, input.path.zoneId, commitWith, cleanupDeadline(remainingMs)),
  () => ({ status: 204 }),
);

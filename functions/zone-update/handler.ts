import { updateZone } from '../../shared/dns/update-zone.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint, versionsOf } from '../../shared/http/pipeline.ts';
import { cleanupDeadline, zoneWriteAnswer } from '../../shared/http/zone-answer.ts';
import { UpdateDomainZoneRequest } from './schema.ts';

/** POST /v2/domains/{domainName}/zone/update[?quote=true]: the zone of a domain in the caller's account, changed; If-Match and Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'zone-update',
    request: UpdateDomainZoneRequest,
    body: jsonBody,
    idempotency: idempotency('zone-update', (input: UpdateDomainZoneRequest) => input.query.quote !== true),
  },
  ({ input, principal, headers, remainingMs }, commitWith) =>
    updateZone(
      principal,
      { domainName: input.path.domainName },
      input.body,
      versionsOf(headers['if-match']),
      commitWith,
      input.query.quote === true,
      cleanupDeadline(remainingMs),
    ),
  zoneWriteAnswer(200),
);

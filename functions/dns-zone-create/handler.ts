import { createZone } from '../../shared/dns/create-zone.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { zoneWriteAnswer } from '../../shared/http/zone-answer.ts';
import { CreateZoneRequest } from './schema.ts';

/** POST /v2/dns/zones[?quote=true]: 201 with the new zone (a PREMIUM one charged: x-process-id); Idempotency-Key supported. */
export const handler = endpoint(
  {
    route: 'dns-zone-create',
    request: CreateZoneRequest,
    body: jsonBody,
    idempotency: idempotency('zone-create', (input: CreateZoneRequest) => input.query.quote !== true),
  },
  ({ input, principal }, commitWith) => createZone(principal, input.body, input.query.quote === true, commitWith),
  zoneWriteAnswer(201),
);

import { startKeyRollover } from '../../shared/dns/key-rollover.ts';
import { idempotency } from '../../shared/http/idempotency.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { processAnswer } from '../../shared/http/response.ts';
import { DnsZoneKeyRolloverRequest } from './schema.ts';

/** POST /v2/dns/zones/{zoneId}/key-rollover: 202 with the rollover's process (x-process-id); it waits for ack-ds-update. */
export const handler = endpoint(
  { route: 'dns-zone-key-rollover', request: DnsZoneKeyRolloverRequest, idempotency: idempotency('zone-key-rollover') },
  ({ input, principal }, commitWith) => startKeyRollover(principal, input.path.zoneId, commitWith),
  processAnswer(202),
);

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ProcessView } from '../../shared/processes/process-view.ts';
import { DnsZoneKeyRolloverRequest } from './schema.ts';

const idempotencyKey = {
  name: 'Idempotency-Key',
  description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
  example: '0e5b7c1d-2f4a-4b8e-9c3d-6a1f2e3b4c5d',
};

/** POST /v2/dns/zones/{zoneId}/key-rollover in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DnsZoneKeyRolloverRequest,
  description: [
    "Starts a key rollover of a signed zone of the caller (the PHP client's dnsZones->keyRollover), the double-DS way: a process `dnsZone` / `keyRollover` starts (202, `x-process-id`, statusDetail `WAITING_FOR_DS`) and, within a second, the DNS provider serves a new signing key beside the old one (both sign). The notification `DnsZoneKeyRolloverEvent` says so, with the DS records of both keys; the zone's `dns.ds` and `keyData` show them too.",
    'Put the new DS at the parent, then acknowledge it with `POST /v2/processes/{processId}/ack-ds-update`: the old key is retired.',
    "Refused with 400 ObjectStatusProhibitsOperation: an unsigned zone, keys not served yet, a rollover waiting for its DS or still retiring its old key, and a DNS provider whose keys the service does not roll (Route 53, the sandbox: docs/zones-api.md). Another customer's zone answers like a missing one: 404.",
  ].join('\n\n'),
  tags: ['Zones'],
  responses: {
    '202': {
      description: 'Started: the rollover process, waiting for the DS.',
      headers: [{ name: 'x-process-id', required: true }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: ProcessView,
          examples: {
            rollover: {
              id: 1203,
              user: 'demo/alice',
              customer: 'demo',
              status: 'RUNNING',
              statusDetail: 'WAITING_FOR_DS',
              resumeTypes: [],
              createdDate: '2026-03-02T10:00:00Z',
              updatedDate: '2026-03-02T10:00:00Z',
              startedDate: '2026-03-02T10:00:00Z',
              type: 'dnsZone',
              action: 'keyRollover',
              identifier: 'demo-secure.com',
              billables: [],
              command: { zoneId: 102 },
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation'],
  requestHeaders: [idempotencyKey],
  examples: { path: { zoneId: '102' } },
};

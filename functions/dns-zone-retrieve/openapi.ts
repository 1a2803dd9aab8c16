import { zoneWriteHeaders } from '../../shared/dns/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DnsZoneRetrieveRequest } from './schema.ts';

/** POST /v2/dns/zones/{zoneId}/retrieve in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DnsZoneRetrieveRequest,
  description: [
    "Retrieves a zone of the caller from its hidden master (the zone's `master`; the PHP client's dnsZones->retrieve, the TypeScript client's dnsZone.retrieve): the service transfers the zone by AXFR over TCP and replaces the zone's records with the master's, in one transaction with the SOA serial raised; DNS serves them within a second, as after an update. The SOA, the apex NS and DNSSEC records are the service's own and are not taken; a linked template's link is broken.",
    "The master must be a public unicast address. The transfer is bounded: the zone service's record count, 16 MiB, 5 s. A failure (refused, unreachable, timeout, not authoritative, too big, records the service does not serve) answers 400 ObjectStatusProhibitsOperation (400 ValidationError naming each refused record) and writes the notification `DnsZoneRetrieveFailedEvent`; the zone keeps its records. A zone without a master: 400. Another customer's zone answers like a missing one: 404, before any transfer.",
  ].join('\n\n'),
  tags: ['Zones'],
  responses: { '204': { description: "Retrieved: the zone holds the master's records.", headers: [{ name: 'Idempotent-Replayed' }] } },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation', 'ValidationError'],
  requestHeaders: zoneWriteHeaders.filter((header) => header.name === 'Idempotency-Key'),
  examples: { path: { zoneId: '104' } },
};

import { zoneWriteHeaders } from '../../shared/dns/examples.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { DeleteDnsZoneRequest } from './schema.ts';

/** DELETE /v2/dns/zones/{zoneId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DeleteDnsZoneRequest,
  description:
    "Deletes a DNS zone of the caller (the SDKs' dnsZones->delete): it leaves the table at once and the DNS provider within a second. The managed zone of a domain goes with its domain: 400 ObjectStatusProhibitsOperation. `If-Match` as for an update. Another customer's zone answers like a missing one: 404.",
  tags: ['Zones'],
  responses: { '204': { description: 'Deleted.', headers: [{ name: 'Idempotent-Replayed' }] } },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist', 'ObjectStatusProhibitsOperation', 'PreconditionFailed'],
  requestHeaders: zoneWriteHeaders,
  examples: { path: { zoneId: '104' } },
};

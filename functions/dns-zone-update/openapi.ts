import * as v from 'valibot';
import { demoZoneExample, premiumChargeDescription, premiumQuoteExample, zoneWriteHeaders } from '../../shared/dns/examples.ts';
import { ZoneView } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { QuoteBody } from '../../shared/model/quote.ts';
import { UpdateDnsZoneRequest } from './schema.ts';

/** How a zone update works. */
const zoneUpdateDescription = [
  "What the body gives replaces what the zone has; what it leaves out stays. `records` is the zone's whole record set, as the real API has it. The new zone is checked as on create (each problem a 400 ValidationError naming the record), written in one transaction (zone and records together or not at all), and served by the DNS provider within a second of the answer, with its SOA serial raised.",
  '`If-Match` with the ETag of the read makes the write conditional: another write in between answers 412 PreconditionFailed, never a silent overwrite. Without it, the last write wins.',
  "While the zone is linked to a template, the template's records must come back unchanged; `link: false` breaks the link and makes them the zone's own. The DCV records the service added and the ACME challenge records of open certificate orders stay.",
].join('\n\n');

/** POST /v2/dns/zones/{zoneId}/update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: UpdateDnsZoneRequest,
  description: `Changes a DNS zone of the caller (the SDKs' dnsZones->update). ${zoneUpdateDescription}\n\n${premiumChargeDescription}`,
  tags: ['Zones'],
  responses: {
    '200': {
      description:
        'The zone as changed; its ETag names the new revision (`x-process-id`: the charge of a move to PREMIUM). With `?quote=true`, the quote.',
      headers: [{ name: 'ETag' }, { name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: {
        'application/json': {
          json: v.union([ZoneView, QuoteBody]),
          examples: { 'demo-shop.nl': demoZoneExample, quote: { ...premiumQuoteExample, command: 'UpdateDnsZoneCommand' } },
        },
      },
    },
  },
  pathObject: true,
  errors: [
    'ConstraintViolationException',
    'ValidationError',
    'ObjectDoesNotExist',
    'ObjectStatusProhibitsOperation',
    'PreconditionFailed',
    'BillableAcknowledgmentNeededException',
  ],
  requestHeaders: zoneWriteHeaders,
  examples: {
    path: { zoneId: '101' },
    body: {
      records: {
        summary: "The demo zone's records, one changed (its template's records sent back unchanged)",
        value: {
          records: [
            { name: 'demo-shop.nl', type: 'A', content: '192.0.2.10', ttl: 3600 },
            { name: 'demo-shop.nl', type: 'AAAA', content: '2001:db8:10::10', ttl: 3600 },
            { name: 'www.demo-shop.nl', type: 'CNAME', content: 'demo-shop.nl', ttl: 3600 },
            { name: 'demo-shop.nl', type: 'MX', content: 'mx1.demo-hosting.example', ttl: 3600, prio: 10 },
            { name: 'demo-shop.nl', type: 'MX', content: 'mx2.demo-hosting.example', ttl: 3600, prio: 20 },
            { name: 'demo-shop.nl', type: 'TXT', content: 'v=spf1 include:_spf.demo-hosting.example ~all', ttl: 3600 },
            { name: 'shop.demo-shop.nl', type: 'A', content: '192.0.2.20', ttl: 300 },
          ],
        },
      },
      unlink: { summary: 'Break the link to the template', value: { link: false } },
    },
  },
};

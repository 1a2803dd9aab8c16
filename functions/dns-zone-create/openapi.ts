import { newZoneExample, premiumChargeDescription, premiumQuoteExample, zoneWriteHeaders } from '../../shared/dns/examples.ts';
import { ZoneView } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { QuoteBody } from '../../shared/model/quote.ts';
import { CreateZoneRequest } from './schema.ts';

/** POST /v2/dns/zones in the OpenAPI document. */
export const docs: OperationDocs = {
  request: CreateZoneRequest,
  description: [
    "Creates a DNS zone of the caller (the SDKs' dnsZones->create): a plain zone of the DNS service (`managed: false`), served by the DNS provider within a second of the answer (docs/zones-api.md).",
    "From `template` (one of the caller's) when given, linked unless `link` is false: a linked zone keeps the template's records, and `records` adds the zone's own. SOA settings: the request's, else the template's, else the defaults (refresh 10800, retry 3600, expire 1209600, ttl 3600, `hostmaster@<name>`).",
    "Every record is checked as a name server would (each problem a 400 ValidationError naming the record): a CNAME alone at its name and not at the apex, host names where a host is named, addresses for A and AAAA, names inside the zone, TTLs within the service's bounds (BASIC 300 to 604800 s, PREMIUM 60 to 604800 s), CAA tags of the IANA registry, no record twice, at most 1,000 records (BASIC) or 10,000 (PREMIUM). A customer holds at most 1,000 zones.",
    'A name that has a zone, or is a domain of another account: 400 ObjectExists.',
    premiumChargeDescription,
  ].join('\n\n'),
  tags: ['Zones'],
  responses: {
    '200': {
      description: 'With `?quote=true`: what the create would charge; nothing is written.',
      content: { 'application/json': { json: QuoteBody, examples: { premium: premiumQuoteExample } } },
    },
    '201': {
      description: 'The new zone (`x-process-id`: the charge of a PREMIUM zone).',
      headers: [{ name: 'ETag', required: true }, { name: 'x-process-id' }, { name: 'Idempotent-Replayed' }],
      content: { 'application/json': { json: ZoneView, examples: { 'my-new-site.nl': newZoneExample } } },
    },
  },
  errors: [
    'ConstraintViolationException',
    'ValidationError',
    'ObjectDoesNotExist',
    'ObjectExists',
    'BillableAcknowledgmentNeededException',
  ],
  requestHeaders: zoneWriteHeaders.slice(0, 1),
  examples: {
    body: {
      plain: {
        summary: 'A zone with two records',
        value: {
          name: 'my-new-site.nl',
          service: 'BASIC',
          records: [
            { name: 'my-new-site.nl', type: 'A', content: '192.0.2.80', ttl: 3600 },
            { name: 'www.my-new-site.nl', type: 'CNAME', content: 'my-new-site.nl', ttl: 3600 },
          ],
        },
      },
      template: { summary: 'A zone linked to a template', value: { name: 'my-templated-site.nl', template: 'demo-template' } },
    },
  },
};

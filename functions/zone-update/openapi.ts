import * as v from 'valibot';
import { demoZoneExample, premiumChargeDescription, premiumQuoteExample, zoneWriteHeaders } from '../../shared/dns/examples.ts';
import { ZoneView } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { QuoteBody } from '../../shared/model/quote.ts';
import { UpdateDomainZoneRequest } from './schema.ts';

/** POST /v2/domains/{domainName}/zone/update in the OpenAPI document. */
export const docs: OperationDocs = {
  request: UpdateDomainZoneRequest,
  description: [
    "Changes the zone of a domain in the caller's account (the real API's managed zone update), as `POST /v2/dns/zones/{id}/update` changes a zone by id.",
    "What the body gives replaces what the zone has; what it leaves out stays. `records` is the zone's whole record set. The new zone is checked as a name server would (each problem a 400 ValidationError naming the record), written in one transaction, and served by the DNS provider within a second of the answer, with its SOA serial raised.",
    "`If-Match` with the ETag of `GET /v2/domains/{domainName}/zone` makes the write conditional: another write in between answers 412 PreconditionFailed. Without it, the last write wins. While the zone is linked to a template, the template's records must come back unchanged; `link: false` breaks the link.",
    'A domain of another customer answers like an unknown one (404 Domain); a domain of the caller without a zone, 404 Zone.',
    premiumChargeDescription,
  ].join('\n\n'),
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
  examples: { path: { domainName: 'demo-shop.nl' }, body: { ttl: { summary: 'A longer SOA TTL', value: { ttl: 7200 } } } },
};

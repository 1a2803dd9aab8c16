import { demoZoneExample } from '../../shared/dns/examples.ts';
import { DnsRecord, ZoneView } from '../../shared/dns/zone-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { ZoneRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/zone in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ZoneRequest,
  description:
    "The DNS zone of a domain in the caller's account (spec 2.12, contract 3.6), as JSON, or with `Accept: text/dns` (or `text/plain`) as an RFC 1035 zone file. A domain of another customer, or one without a zone: 404.",
  tags: ['Zones'],
  responses: {
    '200': {
      description: 'The zone.',
      headers: [{ name: 'Vary', required: true }],
      content: {
        'application/json': {
          json: ZoneView,
          examples: {
            'demo-shop.nl': demoZoneExample,
          },
        },
        'text/dns': {
          text: 'An RFC 1035 zone file ($ORIGIN, $TTL, SOA, NS, then the records).',
          example:
            '$ORIGIN demo-shop.nl.\n$TTL 3600\n@ 3600 IN SOA ns1.registrar-sandbox.example. hostmaster.demo-hosting.example. 1770711300 10800 3600 604800 3600\n@ 3600 IN NS ns1.registrar-sandbox.example.\n@ 3600 IN A 192.0.2.10\n',
        },
        'text/plain': { text: 'The zone file, as `text/dns`.' },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { domainName: 'demo-shop.nl' } },
  components: { Zone: ZoneView, DnsRecord },
};

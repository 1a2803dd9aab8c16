import { domainZone } from '../../shared/dns/domain-zone.ts';
import { endpoint } from '../../shared/http/pipeline.ts';
import { zoneReply } from './representation.ts';
import { ZoneRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/zone (spec 4.6, contract 3.6): JSON, or a zone file for `Accept: text/dns`. */
export const handler = endpoint(
  { route: 'zone', request: ZoneRequest },
  ({ input, principal }) => domainZone(principal.customer, input.path.domainName),
  (zone, { input, headers }) => zoneReply(input.path.domainName, zone, headers.accept),
);

import { endpoint } from '../../shared/http/pipeline.ts';
import { zoneReply } from './representation.ts';
import { ZoneRequest } from './schema.ts';
import { domainZone } from './zone.ts';

export const handler = endpoint({ route: 'zone', request: ZoneRequest }, async ({ input, principal, headers }) =>
  zoneReply(input.path.domainName, await domainZone(principal.customer, input.path.domainName), headers.accept),
);

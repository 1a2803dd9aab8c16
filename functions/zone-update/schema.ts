import * as v from 'valibot';
import { UpdateZoneCommand } from '../../shared/dns/zone-request.ts';
import { DomainName } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}/zone/update: the domain name and the change. */
export const UpdateDomainZoneRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({}),
  body: UpdateZoneCommand,
});

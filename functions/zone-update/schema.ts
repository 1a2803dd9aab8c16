import * as v from 'valibot';
import { UpdateZoneCommand } from '../../shared/dns/zone-request.ts';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/domains/{domainName}/zone/update[?quote=true]: the domain name, the quote flag and the change. */
export const UpdateDomainZoneRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: UpdateZoneCommand,
});
export type UpdateDomainZoneRequest = v.InferOutput<typeof UpdateDomainZoneRequest>;

import * as v from 'valibot';
import { UpdateZoneCommand } from '../../shared/dns/zone-request.ts';
import { PathId, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/dns/zones/{zoneId}/update[?quote=true]: the zone id, the quote flag and the change. */
export const UpdateDnsZoneRequest = v.object({
  path: v.object({ zoneId: PathId }),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: UpdateZoneCommand,
});
export type UpdateDnsZoneRequest = v.InferOutput<typeof UpdateDnsZoneRequest>;

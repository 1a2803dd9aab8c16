import * as v from 'valibot';
import { UpdateZoneCommand } from '../../shared/dns/zone-request.ts';
import { PathId } from '../../shared/schemas/primitives.ts';

/** POST /v2/dns/zones/{zoneId}/update: the zone id and the change. */
export const UpdateDnsZoneRequest = v.object({
  path: v.object({ zoneId: PathId }),
  query: v.object({}),
  body: UpdateZoneCommand,
});

import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** DELETE /v2/dns/zones/{zoneId}: the zone id, nothing else (a body is not read). */
export const DeleteDnsZoneRequest = v.object({
  path: v.object({ zoneId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

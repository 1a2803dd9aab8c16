import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** POST /v2/dns/zones/{zoneId}/retrieve: the zone id, nothing else (a body is not read). */
export const DnsZoneRetrieveRequest = v.object({
  path: v.object({ zoneId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

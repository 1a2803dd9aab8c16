import * as v from 'valibot';
import { CreateZoneCommand } from '../../shared/dns/zone-request.ts';

/** POST /v2/dns/zones: the new zone in the body. */
export const CreateZoneRequest = v.object({
  path: v.object({}),
  query: v.object({}),
  body: CreateZoneCommand,
});

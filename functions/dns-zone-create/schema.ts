import * as v from 'valibot';
import { CreateZoneCommand } from '../../shared/dns/zone-request.ts';
import { QueryBoolean } from '../../shared/schemas/primitives.ts';

/** POST /v2/dns/zones[?quote=true]: the quote flag and the new zone in the body. */
export const CreateZoneRequest = v.object({
  path: v.object({}),
  query: v.object({ quote: v.optional(QueryBoolean) }),
  body: CreateZoneCommand,
});
export type CreateZoneRequest = v.InferOutput<typeof CreateZoneRequest>;

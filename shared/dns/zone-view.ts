import * as v from 'valibot';
import { RecordType, Seconds, soaTimers, zoneSettings } from '../model/zone-fields.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * A zone as the API answers it (contract 3.6), in the contract's field order. The use case and the
 * renderers (zone.ts, zone-file.ts) take only the types, so these schemas weigh nothing in the
 * zone function; the route's API description publishes them.
 */

/** A DNS record on the wire (contract 3.6): `prio` present exactly for MX and SRV. */
export const DnsRecord = v.strictObject({
  name: v.pipe(v.string(), v.description('Fully qualified, `##DOMAIN##` replaced.')),
  type: RecordType,
  content: v.string(),
  ttl: Seconds,
  prio: v.optional(v.pipe(v.number(), v.integer(), v.description('Present exactly for MX and SRV.'))),
});
export type DnsRecord = v.InferOutput<typeof DnsRecord>;

/** Contract 3.6 response body. */
export const ZoneView = v.strictObject({
  id: v.pipe(v.number(), v.integer()),
  name: v.pipe(v.string(), v.description('The domain name (both official clients require it).')),
  customer: v.string(),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
  ...zoneSettings,
  ...soaTimers,
  defaultRecords: v.pipe(v.array(DnsRecord), v.description('The SOA and NS records the service serves for the zone.')),
  records: v.array(DnsRecord),
});
export type ZoneView = v.InferOutput<typeof ZoneView>;

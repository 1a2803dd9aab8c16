import * as v from 'valibot';
import { RecordType, Seconds, soaTimers, zoneSettings } from '../model/zone-fields.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * Whether and since when a DNS server serves the zone, and why not (docs/dns.md). Present when
 * the stage has a DNS provider (`DNS_PROVIDER`).
 */
export const ZoneDnsView = v.strictObject({
  provider: v.pipe(v.string(), v.description('What serves the zone: `powerdns` or `route53`.')),
  status: v.pipe(
    v.picklist(['served', 'pending', 'refused']),
    v.description(
      '`served`: the provider serves the zone as shown; `pending`: the latest change is on its way (or the provider was unreachable and it is retried); `refused`: the provider refused the latest change (`reason`), and serves the zone as it was before, if at all.',
    ),
  ),
  servedSince: v.optional(v.pipe(WireTime, v.description('Since when the provider serves the zone.'))),
  servedDate: v.optional(v.pipe(WireTime, v.description('When the provider last took a change of the zone.'))),
  reason: v.optional(v.pipe(v.string(), v.description("Why the latest change is not served: the provider's words."))),
  failedSince: v.optional(v.pipe(WireTime, v.description('Since when changes of the zone fail.'))),
  ds: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description('With DNSSEC: the DS records to publish at the parent (`keytag algorithm digest-type digest`).'),
    ),
  ),
});
export type ZoneDnsView = v.InferOutput<typeof ZoneDnsView>;

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
  keyData: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          flags: v.pipe(v.number(), v.integer()),
          protocol: v.pipe(v.number(), v.integer()),
          algorithm: v.pipe(v.number(), v.integer()),
          publicKey: v.string(),
        }),
      ),
      v.description('With DNSSEC, once the DNS provider signs the zone: the keys the parent zone needs (as `keyData` of a domain).'),
    ),
  ),
  dns: v.optional(ZoneDnsView),
});
export type ZoneView = v.InferOutput<typeof ZoneView>;

/** A zone as a use case answers it: the view and the revision it shows (the ETag's version, `r<revision>`). */
export interface VersionedZone {
  view: ZoneView;
  revision: number;
  /** The process that recorded the write's charge (a zone made PREMIUM), sent as `x-process-id`. */
  processId?: number;
}

/** A zone in the listing (`GET /v2/dns/zones`): the zone without its records (read the zone by id for those) and DNS standing. */
export const ZoneListEntry = v.omit(ZoneView, ['records', 'dns']);
export type ZoneListEntry = v.InferOutput<typeof ZoneListEntry>;
export type ZoneListField = keyof ZoneListEntry;

/** The listing's answer (the SDKs' Page: entities and pagination); `fields` may leave out any field of an entity. */
export const ZonePage = v.strictObject({
  entities: v.array(v.partial(ZoneListEntry)),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer())),
  }),
});
export type ZonePage = v.InferOutput<typeof ZonePage>;

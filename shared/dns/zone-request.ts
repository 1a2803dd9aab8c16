import * as v from 'valibot';
import { recordTypes } from '../model/zone-fields.ts';
import { AcknowledgedBillables } from '../pricing/quote.ts';
import { ZoneMasterAddress } from '../schemas/address.ts';
import { bodyObject, DomainName, domainNamePattern, Handle, listOf } from '../schemas/primitives.ts';

/**
 * The bodies of the zone API's writes (`POST /v2/dns/zones`, `POST /v2/dns/zones/{id}/update`,
 * `POST /v2/domains/{domainName}/zone/update`), as both official clients send them (the PHP
 * client's DnsZonesApi, the TypeScript client's IDNSZoneCreate / IDNSZoneUpdate). `records` is
 * the zone's whole record set: it replaces the records the zone has. Each record is checked here
 * for its shape only; by its type and against the whole zone in the use case
 * (shared/model/zone-rules.ts), where every problem names the record.
 */

/** The most records one request carries: a PREMIUM zone's bound (the 64 KiB body bounds it before that). */
export const maxRecordsInRequest = 10_000;

const Ttl = v.pipe(v.number(), v.integer('must be whole seconds'), v.minValue(0, 'must not be negative'), v.maxValue(2_147_483_647));

/** A record as the clients send it: `{name, type, content, ttl, prio?}` (`prio` for MX and SRV). */
export const RecordRequest = bodyObject({
  name: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters')),
  type: v.picklist(recordTypes, `must be one of ${recordTypes.join(', ')}`),
  content: v.pipe(v.string(), v.maxLength(4096, 'must be at most 4096 characters')),
  ttl: Ttl,
  prio: v.optional(
    v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0, 'must be 0 to 65535'), v.maxValue(65535, 'must be 0 to 65535')),
  ),
});
export type RecordRequest = v.InferOutput<typeof RecordRequest>;

/** A name server of the zone's own (vanity name servers): a host name. */
const NameServer = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.maxLength(255, 'must be at most 255 characters'),
  v.regex(domainNamePattern, 'is not a valid host name (lower-case, punycode for IDN)'),
);

/** What a create and an update may set besides the name (spec 2.12's fields). */
const settings = {
  service: v.optional(v.picklist(['BASIC', 'PREMIUM'], 'must be BASIC or PREMIUM')),
  template: v.optional(Handle),
  link: v.optional(v.boolean()),
  master: v.optional(ZoneMasterAddress),
  ns: v.optional(listOf(NameServer, 13)),
  dnssec: v.optional(v.boolean()),
  hostMaster: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(254, 'must be at most 254 characters'),
      v.regex(/^[^\s@]{1,64}@[a-z0-9.-]{1,253}$/i, 'must be an e-mail address'),
    ),
  ),
  refresh: v.optional(v.pipe(Ttl, v.minValue(1200, 'must be at least 1200'))),
  retry: v.optional(v.pipe(Ttl, v.minValue(300, 'must be at least 300'))),
  expire: v.optional(v.pipe(Ttl, v.minValue(86_400, 'must be at least 86400'))),
  ttl: v.optional(Ttl),
  records: v.optional(listOf(RecordRequest, maxRecordsInRequest)),
  /** The acknowledged charges (contract section 4): a zone made PREMIUM is charged `dns_premium` (shared/dns/premium-charge.ts). */
  billables: v.optional(AcknowledgedBillables),
};

/** `POST /v2/dns/zones`: a new zone of the caller (`customer`, when the TypeScript client sends it, must be the caller's). */
export const CreateZoneCommand = bodyObject({
  name: DomainName,
  customer: v.optional(Handle),
  ...settings,
});
export type CreateZoneCommand = v.InferOutput<typeof CreateZoneCommand>;

/** `POST .../update`: what is given replaces what the zone has; what is left out stays. `name` (the PHP client may send it) must be the zone's. */
export const UpdateZoneCommand = bodyObject({
  name: v.optional(DomainName),
  ...settings,
});
export type UpdateZoneCommand = v.InferOutput<typeof UpdateZoneCommand>;

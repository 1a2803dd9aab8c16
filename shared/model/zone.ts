import * as v from 'valibot';
import { DomainName, Handle, WireTime } from '../schemas/primitives.ts';
import { RecordType } from './record-type.ts';

export { RecordType, recordTypes } from './record-type.ts';

/**
 * A DNS record as stored: `name` may hold the `##DOMAIN##` placeholder (templates, linked zones);
 * it is replaced when the zone is answered. `prio` only for MX and SRV.
 */
export const ZoneRecordEntry = v.pipe(
  v.object({
    name: v.string(),
    type: RecordType,
    content: v.string(),
    ttl: v.pipe(v.number(), v.integer(), v.minValue(0)),
    prio: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  }),
  // Spec 2.12: prio is mandatory for MX and SRV; a row without it must not be served with a made-up one.
  v.check((r) => (r.type === 'MX' || r.type === 'SRV') === (r.prio !== undefined), 'prio is set exactly for MX and SRV records'),
);
export type ZoneRecordEntry = v.InferOutput<typeof ZoneRecordEntry>;

/** SOA timers shared by zones and templates (spec 2.12). */
const Soa = {
  hostMaster: v.string(),
  refresh: v.pipe(v.number(), v.integer(), v.minValue(0)),
  retry: v.pipe(v.number(), v.integer(), v.minValue(0)),
  expire: v.pipe(v.number(), v.integer(), v.minValue(0)),
  ttl: v.pipe(v.number(), v.integer(), v.minValue(0)),
};

/** The DNS zone of a domain name (contract 3.6), records inline. */
export const ZoneRecord = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  domainName: DomainName,
  customer: Handle,
  /** True when the service manages the zone (a managed zone); false for a plain zone of the service. */
  managed: v.boolean(),
  service: v.picklist(['BASIC', 'PREMIUM']),
  template: v.optional(v.string()),
  link: v.optional(v.boolean()),
  /** IP address of the customer's hidden master, if any. */
  master: v.optional(v.string()),
  dnssec: v.boolean(),
  /** Vanity name servers, when the zone uses them instead of the service's defaults. */
  ns: v.optional(v.array(v.string())),
  ...Soa,
  records: v.array(ZoneRecordEntry),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
});
export type ZoneRecord = v.InferOutput<typeof ZoneRecord>;

/** A zone template of a customer: SOA settings and records with `##DOMAIN##` placeholders. */
export const TemplateRecord = v.object({
  customer: Handle,
  name: Handle,
  ...Soa,
  records: v.array(ZoneRecordEntry),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
});
export type TemplateRecord = v.InferOutput<typeof TemplateRecord>;

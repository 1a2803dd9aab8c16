import * as v from 'valibot';
import { DomainName, Handle, WireTime } from '../schemas/primitives.ts';
import { addMonths, toWireTime } from '../time.ts';
import { RecordType, Seconds, soaTimers, zoneSettings } from './zone-fields.ts';

export { RecordType, recordTypes } from './zone-fields.ts';

/**
 * A DNS record as stored: `name` may hold the `##DOMAIN##` placeholder (templates, linked zones);
 * it is replaced when the zone is answered. `prio` only for MX and SRV. Every write checks the
 * record by its type as well (zone-validation.ts); reads check only this shape.
 */
export const ZoneRecordEntry = v.pipe(
  v.object({
    name: v.string(),
    type: RecordType,
    content: v.string(),
    ttl: Seconds,
    prio: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535))),
  }),
  // Spec 2.12: prio is mandatory for MX and SRV; a row without it must not be served with a made-up one.
  v.check((r) => (r.type === 'MX' || r.type === 'SRV') === (r.prio !== undefined), 'prio is set exactly for MX and SRV records'),
);
export type ZoneRecordEntry = v.InferOutput<typeof ZoneRecordEntry>;

/**
 * A key rollover of a signed zone (`POST /v2/dns/zones/{id}/key-rollover`), as the zone sync
 * carries it out: `publish`, a new signing key is added beside the keys in `retire` (the DNSKEYs
 * served when the rollover began) and the process `processId` waits for the parent's new DS;
 * `retire` (after `ack-ds-update`), the keys in `retire` are removed, the new one stays.
 */
export const ZoneKeyRollover = v.object({
  processId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  stage: v.picklist(['publish', 'retire']),
  retire: v.array(v.string()),
  startedDate: WireTime,
});
export type ZoneKeyRollover = v.InferOutput<typeof ZoneKeyRollover>;

/**
 * A DNS zone of a domain name (contract 3.6) without its records: the settings and SOA timers,
 * and the DCV records the service added for certificate validation (`dcvRecords`, served after
 * the zone's own records). The table keeps this part as one item and each record as an item of
 * its own (shared/db/repositories/zones.ts).
 */
export const ZoneHeader = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  domainName: DomainName,
  customer: Handle,
  ...zoneSettings,
  ...soaTimers,
  dcvRecords: v.optional(v.array(ZoneRecordEntry)),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
  /**
   * The SOA serial of the zone's last change, where it had to be raised past the second of that
   * change (two changes within one second): see soaSerial in shared/dns/zone.ts.
   */
  serial: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4_294_967_295))),
  /** The zone's signing-key rollover, while one runs and after (its `retire` stage stays until the next one). */
  keyRollover: v.optional(ZoneKeyRollover),
  /**
   * A PREMIUM zone's paid-until time: twelve months after the charge that made it PREMIUM, moved
   * on a year by each yearly charge (`dns_premium` RENEW: shared/dns/premium-renewal.ts). Absent on
   * a BASIC zone.
   */
  paidUntil: v.optional(WireTime),
});
export type ZoneHeader = v.InferOutput<typeof ZoneHeader>;

/** How long one charge of a PREMIUM zone pays for: twelve months (prices are per 12 months, as every product's). */
export const premiumYearMonths = 12;

/** A PREMIUM zone's paid-until time after the charge of the year that starts at `from`. */
export function premiumPaidUntil(from: string | Date): string {
  return toWireTime(addMonths(new Date(from), premiumYearMonths));
}

/**
 * The paid-until time given to a PREMIUM zone stored before its later years were charged: the first
 * anniversary of its creation after `now` (its years before were never billed, and are not now).
 */
export function firstUnpaidAnniversary(createdDate: string, now: Date): string {
  const created = new Date(createdDate);
  const years = Math.max(1, now.getUTCFullYear() - created.getUTCFullYear());
  const until = addMonths(created, years * premiumYearMonths);
  return toWireTime(until.getTime() > now.getTime() ? until : addMonths(created, (years + 1) * premiumYearMonths));
}

/** A zone with its records: what a dataset holds, what provisioning creates and what the API answers from. */
export const ZoneRecord = v.object({
  ...ZoneHeader.entries,
  records: v.array(ZoneRecordEntry),
});
export type ZoneRecord = v.InferOutput<typeof ZoneRecord>;

/** Every record a zone serves: its own, then the DCV records the service added. */
export function servedRecords(zone: Pick<ZoneRecord, 'records' | 'dcvRecords'>): ZoneRecordEntry[] {
  return zone.dcvRecords?.length ? [...zone.records, ...zone.dcvRecords] : zone.records;
}

/** A zone template of a customer: SOA settings and records with `##DOMAIN##` placeholders. */
export const TemplateRecord = v.object({
  customer: Handle,
  name: Handle,
  ...soaTimers,
  records: v.array(ZoneRecordEntry),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
});
export type TemplateRecord = v.InferOutput<typeof TemplateRecord>;

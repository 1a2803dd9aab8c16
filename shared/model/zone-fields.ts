import * as v from 'valibot';

/**
 * What a stored zone (zone.ts, which re-exports these) and the zone the API answers
 * (shared/dns/zone-view.ts) have in common: the record types and the zone's settings. On their own
 * so that the API description takes them without the stored records' schemas.
 */

/** Record types of contract 3.6. */
export const recordTypes = [
  'A',
  'AAAA',
  'ALIAS',
  'CAA',
  'CERT',
  'CNAME',
  'DNSKEY',
  'DS',
  'HINFO',
  'LOC',
  'MBOXFW',
  'MX',
  'NAPTR',
  'NS',
  'SOA',
  'SRV',
  'SSHFP',
  'TLSA',
  'TXT',
  'URI',
  'URL',
] as const;
export const RecordType = v.picklist(recordTypes);

/** A zone's settings (contract 3.6), in the contract's order. */
export const zoneSettings = {
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
};

/** Whole seconds. */
export const Seconds = v.pipe(v.number(), v.integer(), v.minValue(0));

/** SOA timers shared by zones and templates (spec 2.12). */
export const soaTimers = {
  hostMaster: v.string(),
  refresh: Seconds,
  retry: Seconds,
  expire: Seconds,
  ttl: Seconds,
};

import * as v from 'valibot';
import { DomainName, Handle, WireTime } from '../schemas/primitives.ts';
import { DnssecAlgorithm } from './provider.ts';

/** DNSSEC key data as the registry holds it (spec 2.4). */
export const KeyData = v.object({
  protocol: v.literal(3),
  flags: v.picklist([256, 257]),
  algorithm: DnssecAlgorithm,
  publicKey: v.string(),
});
export type KeyData = v.InferOutput<typeof KeyData>;

/** A DS record of a domain's DNSSEC delegation, for the registries that take DS data rather than keys. */
export const DsData = v.object({
  keyTag: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)),
  algorithm: DnssecAlgorithm,
  digestType: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(255)),
  digest: v.string(),
});
export type DsData = v.InferOutput<typeof DsData>;

export const DomainContact = v.object({ role: v.picklist(['ADMIN', 'BILLING', 'TECH']), handle: Handle });
export type DomainContact = v.InferOutput<typeof DomainContact>;

/** The statuses of a domain in the API (the SDKs' DomainStatusEnum), upper case. */
export const domainStatuses = [
  'OK',
  'INACTIVE',
  'PENDING_TRANSFER',
  'PENDING_RENEW',
  'PENDING_UPDATE',
  'DELETE_REQUESTED',
  'PENDING_DELETE',
  'ADD_PERIOD',
  'RENEW_PERIOD',
  'AUTO_RENEW_PERIOD',
  'TRANSFER_PERIOD',
  'REDEMPTION_PERIOD',
  'PENDING_RESTORE',
  'CLIENT_HOLD',
  'CLIENT_DELETE_PROHIBITED',
  'CLIENT_UPDATE_PROHIBITED',
  'CLIENT_RENEW_PROHIBITED',
  'CLIENT_TRANSFER_PROHIBITED',
  'REGISTRAR_HOLD',
  'REGISTRAR_DELETE_PROHIBITED',
  'REGISTRAR_UPDATE_PROHIBITED',
  'REGISTRAR_RENEW_PROHIBITED',
  'REGISTRAR_TRANSFER_PROHIBITED',
  'SERVER_HOLD',
  'SERVER_DELETE_PROHIBITED',
  'SERVER_UPDATE_PROHIBITED',
  'SERVER_RENEW_PROHIBITED',
  'SERVER_TRANSFER_PROHIBITED',
  'PENDING_VALIDATION',
  'PRIVACY_PROTECT_PROHIBITED',
  'EXPIRED',
  'IRTPC_TRANSFER_PROHIBITED',
] as const;
export type DomainStatus = (typeof domainStatuses)[number];

/** The statuses a customer sets and lifts (an update's `status`); every other one is the registry's. */
export const clientStatuses = [
  'CLIENT_HOLD',
  'CLIENT_DELETE_PROHIBITED',
  'CLIENT_UPDATE_PROHIBITED',
  'CLIENT_RENEW_PROHIBITED',
  'CLIENT_TRANSFER_PROHIBITED',
] as const satisfies readonly DomainStatus[];

/** The registrar lock: a domain with it cannot be transferred away. */
export const transferLock: DomainStatus = 'CLIENT_TRANSFER_PROHIBITED';

/**
 * A status as the API spells it: `CLIENT_TRANSFER_PROHIBITED` from the EPP spelling
 * `clientTransferProhibited` (records written by an earlier version, and the sandbox registry's).
 */
export function wireStatus(status: string): string {
  if (/^[A-Z0-9_]+$/.test(status)) return status;
  return status.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

/** The domain statuses of a record, in the API's spelling: read as stored, normalised. */
const Statuses = v.pipe(
  v.array(v.string()),
  v.transform((statuses) => [...new Set(statuses.map(wireStatus))]),
);

/** The managed DNS zone a domain is linked to, as the domain shows it. */
export const DomainZone = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  service: v.picklist(['BASIC', 'PREMIUM']),
  template: v.optional(v.string()),
  dnssec: v.boolean(),
  master: v.optional(v.string()),
});
export type DomainZone = v.InferOutput<typeof DomainZone>;

/**
 * A domain name in a customer's account. Fields added after the first version (`autoRenewPeriod`,
 * `premium`, ...) read with their defaults from items written before them, until `npm run admin --
 * migrate` writes them (infra/migrate.ts).
 */
export const DomainRecord = v.object({
  domainName: DomainName,
  customer: Handle,
  /** The registry (provider name) that runs the extension. */
  registry: v.string(),
  registrant: Handle,
  contacts: v.array(DomainContact),
  ns: v.array(v.string()),
  keyData: v.array(KeyData),
  dsData: v.optional(v.array(DsData)),
  /** Glue hosts under the domain (`ns1.<domain>`), as the registry lists them. */
  childHosts: v.optional(v.array(v.string())),
  privacyProtect: v.boolean(),
  autoRenew: v.boolean(),
  /** Months a renewal by auto-renew adds. */
  autoRenewPeriod: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 12),
  premium: v.optional(v.boolean(), false),
  /** The transfer (EPP) code; shown to the owner only, never logged. */
  authcode: v.optional(v.string()),
  languageCode: v.optional(v.string()),
  /** Registry statuses, upper case (`OK`, `CLIENT_TRANSFER_PROHIBITED`, ...). */
  status: Statuses,
  /** The managed zone linked to the domain, if any. */
  zone: v.optional(DomainZone),
  /** Until when a registrant change keeps the domain from being transferred (IRTP-C), if it does. */
  transferLockUntil: v.optional(WireTime),
  createdDate: WireTime,
  updatedDate: WireTime,
  expiryDate: WireTime,
  /** In the redemption period (`REDEMPTION_PERIOD`): until when it can be restored; then it is gone (docs/domains.md). */
  redemptionUntil: v.optional(WireTime),
  /** When the expiry job next acts on the domain, as the job set it; absent: as its expiry decides (shared/model/domain-lifecycle.ts). */
  lifecycleDue: v.optional(WireTime),
  /** The expiry notices sent before `expiryDate` (days before it), so none goes out twice. */
  expiryNotices: v.optional(v.object({ expiryDate: WireTime, days: v.array(v.pipe(v.number(), v.integer(), v.minValue(1))) })),
});
export type DomainRecord = v.InferOutput<typeof DomainRecord>;
/** A record as written (its statuses and defaults may be left to the reader). */
export type DomainInput = v.InferInput<typeof DomainRecord>;

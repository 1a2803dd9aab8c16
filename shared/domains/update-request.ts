import * as v from 'valibot';
import { DsData, domainStatuses } from '../model/domain.ts';
import { dnssecAlgorithms } from '../model/provider.ts';
import { AcknowledgedBillables } from '../pricing/index.ts';
import { bodyObject, Handle, listOf } from '../schemas/primitives.ts';
import { ContactRequest, KeyDataRequest, NameServerList, ZoneRequest } from '../transfer/request.ts';

/**
 * The body of `POST /v2/domains/{domainName}/update` (the real API's update, as the SDKs and the
 * WHMCS module send it): every field optional, each applied only when sent. `null` is absent (the
 * PHP SDK sends its unset fields as null, `period` and `languageCode` included).
 */

/** True when no two items share a key. */
const distinct = <T>(items: readonly T[], key: (item: T) => string) => new Set(items.map(key)).size === items.length;

/** A DS record (RFC 4034): key tag, algorithm, digest type and the digest in hex. */
const DsDataRequest = bodyObject({
  keyTag: DsData.entries.keyTag,
  algorithm: v.picklist(dnssecAlgorithms, `must be one of ${dnssecAlgorithms.join(', ')}`),
  digestType: DsData.entries.digestType,
  digest: v.pipe(v.string(), v.regex(/^[0-9A-Fa-f]{40,128}$/, 'must be 40 to 128 hexadecimal digits'), v.toUpperCase()),
});

/** `{}` (nothing in it, before nulls are dropped) removes the managed zone: null once parsed; anything else is a zone request. */
const ZoneChange = v.pipe(
  v.unknown(),
  v.transform((raw) => (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0 ? null : raw)),
  v.nullable(ZoneRequest),
);

export const UpdateBody = bodyObject({
  registrant: v.optional(Handle),
  privacyProtect: v.optional(v.boolean()),
  /** `""` asks the registry for a new auth code (the WHMCS module does so); any other value sets it. */
  authcode: v.optional(v.pipe(v.string(), v.maxLength(64, 'must be at most 64 characters long'))),
  autoRenew: v.optional(v.boolean()),
  autoRenewPeriod: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer number of months'),
      v.minValue(12, 'must be at least 12'),
      v.maxValue(120, 'must be at most 120'),
      v.check((n) => n % 12 === 0, 'must be a whole number of years in months (12, 24, ...)'),
    ),
  ),
  ns: v.optional(NameServerList),
  /** The whole status list wanted: only CLIENT_* statuses change; IRTPC_TRANSFER_PROHIBITED may only be removed. */
  status: v.optional(
    v.pipe(
      listOf(v.picklist(domainStatuses, `must be one of the domain statuses (${domainStatuses.slice(0, 3).join(', ')}, ...)`), 40),
      v.check((items) => distinct(items, (s) => s), 'must not list a status twice'),
    ),
  ),
  designatedAgent: v.optional(v.picklist(['NONE', 'OLD', 'NEW', 'BOTH'], 'must be NONE, OLD, NEW or BOTH')),
  contacts: v.optional(
    v.pipe(
      listOf(ContactRequest, 10),
      v.check((items) => distinct(items, (c) => `${c.role} ${c.handle}`), 'must not list a contact twice in one role'),
    ),
  ),
  /**
   * The domain's managed zone (shared/domains/update-zone.ts): `{service, template, link, master,
   * dnssec}` links one (a domain without one gets it; a different template or link re-links it;
   * the zone as read sent back changes nothing); `{}` (the TS SDK's empty zone) removes it, and
   * is `null` once parsed. A `null` zone is absent, as every null of the body.
   */
  zone: v.optional(ZoneChange),
  keyData: v.optional(listOf(KeyDataRequest, 20)),
  dsData: v.optional(listOf(DsDataRequest, 20)),
  billables: v.optional(AcknowledgedBillables),
  languageCode: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as de or zh-Hans'),
      v.maxLength(35, 'must be at most 35 characters long'),
    ),
  ),
  /** Sent by the PHP SDK (as null); an update never changes the period: renew does. */
  period: v.optional(v.custom<never>(() => false, 'cannot be changed by an update (renew the domain instead)')),
});
export type UpdateBody = v.InferOutput<typeof UpdateBody>;

import * as v from 'valibot';
import { dnssecAlgorithms } from '../model/provider.ts';
import { AcknowledgedBillables } from '../pricing/index.ts';
import { PublicUnicastAddress } from '../schemas/address.ts';
import { bodyObject, domainNamePattern, Handle, listOf } from '../schemas/primitives.ts';

/**
 * The body of a transfer-in (POST /v2/domains/{domainName}/transfer): spec 2.1-2.5 with the limits
 * of spec 8 and the extra keys contract 3.1 allows (`transferContacts`, `languageCode`).
 */

/** A name server host name (spec 2.1): the domain-name pattern, 4 to 255 characters. */
const NameServer = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.minLength(4, 'must be 4 to 255 characters long'),
  v.maxLength(255, 'must be 4 to 255 characters long'),
  v.regex(domainNamePattern, 'is not a valid host name (lower-case, punycode for IDN)'),
);

/**
 * Spec 2.2. `master` is the public unicast IP address (v4 or v6) of the customer's hidden master. `id` (contract
 * 3.1, as both official clients' zone models carry it) names the caller's existing zone to convert.
 */
export const ZoneRequest = bodyObject({
  id: v.optional(v.pipe(v.number(), v.integer('must be an integer zone id'), v.minValue(1, 'must be a positive zone id'))),
  service: v.optional(v.picklist(['BASIC', 'PREMIUM'], 'must be BASIC or PREMIUM')),
  template: v.optional(Handle),
  link: v.optional(v.boolean()),
  master: v.optional(PublicUnicastAddress),
  dnssec: v.optional(v.boolean()),
});

/** Spec 2.3. */
export const ContactRequest = bodyObject({
  role: v.picklist(['ADMIN', 'BILLING', 'TECH'], 'must be ADMIN, BILLING or TECH'),
  handle: Handle,
});

/** Base64 per RFC 4648 (padding required); whitespace inside is ignored (contract 3.1). */
const Base64 = v.pipe(
  v.string(),
  v.transform((s) => s.replace(/\s+/g, '')),
  v.minLength(4, 'must be a base64 encoded public key'),
  v.maxLength(8192, 'must be at most 8192 characters long'),
  v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be valid base64'),
);

/** Spec 2.4. */
export const KeyDataRequest = bodyObject({
  protocol: v.literal(3, 'must be 3'),
  flags: v.picklist([256, 257], 'must be 256 (ZSK) or 257 (KSK)'),
  algorithm: v.picklist(dnssecAlgorithms, `must be one of ${dnssecAlgorithms.join(', ')}`),
  publicKey: Base64,
});

/** True when no two items share a key. */
const distinct = <T>(items: readonly T[], key: (item: T) => string) => new Set(items.map(key)).size === items.length;

/** Spec 2.1: at most 10 name servers, none twice (a transfer's and an update's `ns`). */
export const NameServerList = v.pipe(
  listOf(NameServer, 10),
  v.check((items) => distinct(items, (n) => n), 'must not list a name server twice'),
);

/** Whose contacts the transfer takes over (contract 3.1). */
const TransferContact = v.picklist(['REGISTRANT', 'ADMIN'], 'must be REGISTRANT or ADMIN');

/**
 * A list of TransferContact, or one of them as a list of one: the TypeScript client types the field
 * as one value and the PHP client sends one (contract 3.1). A wrong item is reported at its index.
 */
const TransferContacts = v.pipe(
  v.union([TransferContact, v.array(v.unknown())], 'must be REGISTRANT or ADMIN, or a list of them'),
  v.transform((value) => (typeof value === 'string' ? [value] : value)),
  listOf(TransferContact, 2),
  v.check((items) => distinct(items, (c) => c), 'must not list a contact twice'),
  // The API description: the value, or a list of distinct values (the conversion would keep only "array").
  v.metadata({ type: ['string', 'array'], uniqueItems: true }),
);

/** Spec 2.1 plus contract 3.1's `transferContacts` and `languageCode`. */
export const TransferBody = bodyObject({
  customer: Handle,
  registrant: Handle,
  privacyProtect: v.optional(v.boolean()),
  period: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer number of months'),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(120, 'must be at most 120'),
    ),
  ),
  authcode: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters long'))),
  autoRenew: v.optional(v.boolean()),
  ns: v.optional(NameServerList),
  designatedAgent: v.optional(v.picklist(['NONE', 'OLD', 'NEW', 'BOTH'], 'must be NONE, OLD, NEW or BOTH')),
  zone: v.optional(ZoneRequest),
  contacts: v.optional(
    v.pipe(
      listOf(ContactRequest, 10),
      v.check((items) => distinct(items, (c) => `${c.role} ${c.handle}`), 'must not list a contact twice in one role'),
    ),
  ),
  keyData: v.optional(listOf(KeyDataRequest, 20)),
  billables: v.optional(AcknowledgedBillables),
  transferContacts: v.optional(TransferContacts),
  languageCode: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as de or zh-Hans'),
      v.maxLength(35, 'must be at most 35 characters long'),
    ),
  ),
});
export type TransferBody = v.InferOutput<typeof TransferBody>;

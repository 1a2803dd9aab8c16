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

export const DomainContact = v.object({ role: v.picklist(['ADMIN', 'BILLING', 'TECH']), handle: Handle });

/** A domain name in a customer's account. */
export const DomainRecord = v.object({
  domainName: DomainName,
  customer: Handle,
  /** The registry (provider name) that runs the extension. */
  registry: v.string(),
  registrant: Handle,
  contacts: v.array(DomainContact),
  ns: v.array(v.string()),
  keyData: v.array(KeyData),
  privacyProtect: v.boolean(),
  autoRenew: v.boolean(),
  /** Registry statuses (`ok`, `clientTransferProhibited`, ...). */
  status: v.array(v.string()),
  createdDate: WireTime,
  updatedDate: WireTime,
  expiryDate: WireTime,
});
export type DomainRecord = v.InferOutput<typeof DomainRecord>;

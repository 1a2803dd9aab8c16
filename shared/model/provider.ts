import * as v from 'valibot';
import { WireTime } from '../schemas/primitives.ts';

/**
 * The most labels a registry's extension has (`co.uk`: 2; public suffixes run to 4, such as
 * `pvt.k12.ma.us`), so that the extensions a name may fall under are a few, however deep the name.
 */
export const maxExtensionLabels = 4;

/** Client domain statuses a registry may let the registrar set (contract 3.4). */
export const ClientDomainStatus = v.picklist([
  'CLIENT_HOLD',
  'CLIENT_DELETE_PROHIBITED',
  'CLIENT_UPDATE_PROHIBITED',
  'CLIENT_RENEW_PROHIBITED',
  'CLIENT_TRANSFER_PROHIBITED',
  'IRTPC_TRANSFER_PROHIBITED',
]);

/** DNSSEC algorithm numbers the spec allows (spec 2.4). */
export const dnssecAlgorithms = [3, 5, 6, 7, 8, 10, 12, 13, 14, 15, 16, 17, 23] as const;
export const DnssecAlgorithm = v.picklist(dnssecAlgorithms);

/**
 * The field types of contract 3.4: the ones both official clients know (the PHP client warns on
 * any other). A property limited to a fixed set is a `String` with `values`.
 */
export const propertyTypes = ['String', 'Integer', 'Date'] as const;

/** One shape for contactProperties and certificateProperties entries (spec 2.10, contract 3.4). */
export const PropertyDefinition = v.pipe(
  v.object({
    name: v.string(),
    label: v.string(),
    description: v.string(),
    type: v.picklist(propertyTypes),
    mandatory: v.boolean(),
    values: v.optional(
      v.pipe(
        v.record(v.string(), v.string()),
        v.description('The allowed values (value -> description) of a `String` limited to a fixed set.'),
      ),
    ),
  }),
  v.check((p) => p.values === undefined || p.type === 'String', 'a property limited to a fixed set is a String with values'),
);

export const LaunchPhase = v.object({
  phase: v.string(),
  startDate: v.optional(WireTime),
  endDate: v.optional(WireTime),
});

const Periods = v.array(v.pipe(v.number(), v.integer(), v.minValue(0)));

/** Provider metadata under the contract's wire keys (spec 2.10, contract 3.4); every field optional. */
export const ProviderMetadata = v.object({
  possibleDomainExtensions: v.optional(
    v.array(
      v.pipe(
        v.string(),
        v.check((ext) => ext.split('.').length <= maxExtensionLabels, `an extension has at most ${maxExtensionLabels} labels`),
      ),
    ),
  ),
  createDomainPeriods: v.optional(Periods),
  renewDomainPeriods: v.optional(Periods),
  transferDomainPeriods: v.optional(Periods),
  adjustableAuthCode: v.optional(v.boolean()),
  transferSupportsAuthcode: v.optional(v.boolean()),
  transferRequiresAuthcode: v.optional(v.boolean()),
  possibleClientDomainStatuses: v.optional(v.array(ClientDomainStatus)),
  explicitRenewSupported: v.optional(v.boolean()),
  allowedDnssecRecords: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  allowedDnssecAlgorithms: v.optional(v.array(DnssecAlgorithm)),
  contactProperties: v.optional(v.array(PropertyDefinition)),
  certificateProperties: v.optional(v.array(PropertyDefinition)),
  launchPhases: v.optional(v.array(LaunchPhase)),
});
export type ProviderMetadata = v.InferOutput<typeof ProviderMetadata>;

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Restriction = { min: Count, max: Count, required: v.boolean() };
const OrganizationRules = {
  organizationRequired: v.boolean(),
  organizationAllowed: v.boolean(),
  allowedCountries: v.optional(v.array(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/)))),
};
const ContactRestrictions = v.object({ ...Restriction, ...OrganizationRules });

/**
 * The rest of a TLD's metadata as the SDKs' TLD info models read it (the TS SDK's `Metadata`, the
 * PHP SDK's `TLDMetaData`, which requires most of these), beside ProviderMetadata: grace periods
 * (days), transfer and registrant-change rules, contact and name-server limits, privacy facts.
 * Enum values are those both SDKs know.
 */
export const TldMetadata = v.object({
  autoRenewDomainPeriods: Periods,
  redemptionPeriod: v.optional(Count),
  pendingDeletePeriod: v.optional(Count),
  addGracePeriod: v.optional(Count),
  renewGracePeriod: v.optional(Count),
  autoRenewGracePeriod: v.optional(Count),
  transferGracePeriod: v.optional(Count),
  expiryDateOffset: v.optional(v.pipe(v.number(), v.integer())),
  transferFOA: v.boolean(),
  customAuthcodeSupport: v.boolean(),
  creationRequiresPreValidation: v.boolean(),
  zoneCheck: v.optional(v.string()),
  featuresAvailable: v.array(
    v.picklist(['CREATE', 'RENEW', 'TRANSFER', 'RESTORE', 'UPDATE', 'PRIVACY_PROTECT', 'PUSH_TRANSFER', 'LOCAL_CONTACT', 'REGISTRY_LOCK']),
  ),
  registrantChangeApprovalRequired: v.boolean(),
  registrantChangeTransferLock: v.boolean(),
  allowDesignatedAgent: v.optional(v.picklist(['NONE', 'OLD', 'NEW', 'BOTH'])),
  jurisdiction: v.optional(v.string()),
  termsOfService: v.optional(v.string()),
  privacyPolicy: v.optional(v.string()),
  registrationNotice: v.optional(v.string()),
  whoisExposure: v.picklist(['NONE', 'LIMITED', 'FULL', 'UNKNOWN']),
  gdprCategory: v.picklist(['EU_BASED', 'ADEQUACY', 'DATA_EXPORT', 'UNKNOWN']),
  premiumSupport: v.picklist(['NO', 'REGULAR', 'CREATE_ONLY']),
  sendWdrpNotifications: v.boolean(),
  sendErrpNotifications: v.boolean(),
  transferLockDays: v.optional(Count),
  renewalOnTransfer: v.picklist(['NO_CHANGE', 'RENEW_UNLESS_GRACE', 'RENEWAL', 'NEW_PERIOD']),
  restoreIncludesRenew: v.boolean(),
  domainSyntax: v.object({
    minLength: Count,
    maxLength: Count,
    idnSupport: v.boolean(),
    allowedCharacters: v.optional(v.string()),
  }),
  nameservers: v.object(Restriction),
  registrant: v.object(OrganizationRules),
  adminContacts: ContactRestrictions,
  billingContacts: ContactRestrictions,
  techContacts: ContactRestrictions,
});
export type TldMetadata = v.InferOutput<typeof TldMetadata>;

/** The provider metadata a TLD's metadata repeats (its extensions are the TLD info's `applicableFor`; certificate properties are no TLD's). */
export const tldProviderFields = [
  'createDomainPeriods',
  'renewDomainPeriods',
  'transferDomainPeriods',
  'adjustableAuthCode',
  'transferSupportsAuthcode',
  'transferRequiresAuthcode',
  'possibleClientDomainStatuses',
  'allowedDnssecRecords',
  'allowedDnssecAlgorithms',
  'contactProperties',
  'launchPhases',
] as const satisfies readonly (keyof ProviderMetadata)[];

/** The provider kinds a path may name; the spec documents REGISTRY only (spec 4.4). */
export const ProviderKind = v.picklist(['REGISTRY']);
export type ProviderKind = v.InferOutput<typeof ProviderKind>;

/** The extension candidates of a domain, longest first, at most `maxExtensionLabels` labels: `a.b.co.uk` -> `b.co.uk`, `co.uk`, `uk`. */
export function extensionCandidates(domainName: string): string[] {
  const labels = domainName.split('.');
  const result: string[] = [];
  for (let i = Math.max(1, labels.length - maxExtensionLabels); i < labels.length; i++) result.push(labels.slice(i).join('.'));
  return result;
}

/** A provider (a registry, as the service sees it), its metadata, and the rest of its TLDs' metadata. */
export const ProviderRecord = v.object({
  kind: ProviderKind,
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9\-_.]*$/)),
  metadata: ProviderMetadata,
  tldMetadata: v.optional(TldMetadata),
});
export type ProviderRecord = v.InferOutput<typeof ProviderRecord>;

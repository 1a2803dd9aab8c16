import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/**
 * The certificate domain's records and enums: products (the spec's "ssl product metadata"),
 * authorities (with the sandbox authority's behaviour as data) and certificates, and the
 * validation vocabulary they share. The state a certificate process keeps is in
 * certificate-process.ts, an acme process's in acme.ts: functions that only open or read
 * certificates bundle none of those schemas. Wire enums per contract 3.3.
 */

/** Counts and ids of the certificate records. */
export const NonNegative = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Positive = v.pipe(v.number(), v.integer(), v.minValue(1));

export const ValidationLevel = v.picklist(['DV', 'OV', 'EV']);
export type ValidationLevel = v.InferOutput<typeof ValidationLevel>;

/** Contract 3.3: statuses of organization, docs, voice, agreement, whois and each DCV entry. */
export const ValidationStatus = v.picklist(['WAITING', 'ATTENTION', 'VALIDATED']);
export type ValidationStatus = v.InferOutput<typeof ValidationStatus>;

export const DnsType = v.picklist(['CNAME', 'TXT']);

/** The organization checks of OV/EV requests (spec 2.9), in wire order. */
export const organizationChecks = ['organization', 'docs', 'voice', 'agreement', 'whois'] as const;
export type OrganizationCheck = (typeof organizationChecks)[number];
/** Only these may be ATTENTION (spec 2.9), and only these open the validation manager. */
export const attentionChecks = ['organization', 'voice', 'agreement'] as const;

/** Renewal fields whose use each product decides (spec 2.7: "usage per the ssl product metadata"). */
export const productFields = [
  'domainName',
  'organization',
  'department',
  'state',
  'address',
  'postalCode',
  'city',
  'coc',
  'approver',
  'saEmail',
] as const;
export type ProductField = (typeof productFields)[number];

/** A certificate product: configuration, one item per product. */
export const CertificateProduct = v.object({
  product: v.pipe(v.string(), v.regex(/^[a-z0-9_]+$/)),
  /** The certificate authority's name (see CertificateAuthority). */
  authority: v.string(),
  name: v.string(),
  validationType: ValidationLevel,
  certificateType: v.picklist(['SINGLE_DOMAIN', 'MULTI_DOMAIN']),
  /** Validity periods offered, in months; more than 12 is delivered as a subscription. */
  periods: v.pipe(v.array(Positive), v.minLength(1)),
  /** Names included in the price (the common name counts; the free www/non-www name does not). */
  includedDomains: Positive,
  /** Most names a request may hold (the free www/non-www name does not count). */
  maxDomains: Positive,
  wildcard: v.boolean(),
  /** Whether auth-key validation (immediate issuance) is offered. */
  authKey: v.boolean(),
  /** Days before expiry from which a certificate of this product may be renewed. */
  renewalWindowDays: Positive,
  requiredFields: v.array(v.picklist(productFields)),
  optionalFields: v.array(v.picklist(productFields)),
  /** The authority's warranty, in US dollars, as the SSL product listing shows it. */
  warranty: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** How long issuance usually takes once validated, in words (`5 minutes`, `1-3 days`). */
  issueTime: v.optional(v.pipe(v.string(), v.maxLength(64))),
});
export type CertificateProduct = v.InferOutput<typeof CertificateProduct>;

/** When the sandbox finishes one organization check, and with which status. */
const SandboxCheck = v.object({ afterSeconds: NonNegative, result: ValidationStatus });

/** A certificate authority: how it validates, and how the sandbox authority behaves (data, not code). */
export const CertificateAuthority = v.object({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9_-]+$/)),
  displayName: v.string(),
  /** Issuer domain names this authority recognises in CAA `issue`/`issuewild` records (RFC 8659). */
  caaIdentifiers: v.pipe(v.array(v.string()), v.minLength(1)),
  /** Whether it runs a validation manager that one-time links lead to (spec 2.9 oneTimeLink). */
  validationManager: v.boolean(),
  /** Whether it exposes risk checks (dcv riskStatus). */
  riskChecks: v.boolean(),
  /** DNS DCV: the record type it asks for and the domain its CNAME targets / TXT values name. */
  dcv: v.object({ dnsType: DnsType, target: v.string() }),
  /** Months a single certificate is valid (longer periods are subscriptions with reissues). */
  maxValidityMonths: Positive,
  sandbox: v.object({
    /** Seconds after the request at which an approval e-mail is answered; null: never. */
    emailApprovedAfterSeconds: v.nullable(NonNegative),
    /** Seconds after which the validation file is found on the web server; null: never. */
    fileFoundAfterSeconds: v.nullable(NonNegative),
    /** Seconds after which a DNS record in a zone not managed here is found; null: never. */
    externalDnsFoundAfterSeconds: v.nullable(NonNegative),
    /** Outcome of each organization check of OV/EV requests. */
    organizationChecks: v.object({
      organization: SandboxCheck,
      docs: SandboxCheck,
      voice: SandboxCheck,
      agreement: SandboxCheck,
      whois: SandboxCheck,
    }),
    /** An outage: every call to the authority fails with 503 ProviderUnavailable (clients test their retries). */
    unavailable: v.optional(v.boolean()),
  }),
});
export type CertificateAuthority = v.InferOutput<typeof CertificateAuthority>;

export const CertificateStatus = v.picklist(['ACTIVE', 'EXPIRED', 'REVOKED', 'SUSPENDED']);

/** An issued certificate in a customer's account. */
export const CertificateRecord = v.object({
  id: Positive,
  customer: Handle,
  product: v.string(),
  commonName: v.string(),
  san: v.array(v.string()),
  status: CertificateStatus,
  serialNumber: v.string(),
  startDate: WireTime,
  expiryDate: WireTime,
  /** End of a multi-year subscription this certificate belongs to. */
  subscriptionEndDate: v.optional(WireTime),
  organization: v.optional(v.string()),
  keyType: v.optional(v.string()),
  /** The process that issued it. */
  processId: v.optional(Positive),
  /** The renewal process now open for it (one at a time); absent when none. */
  renewalProcessId: v.optional(Positive),
  /** The certificate that replaced it, once a renewal completed. */
  renewedBy: v.optional(Positive),
  createdDate: WireTime,
  updatedDate: WireTime,
  /** The CSR the certificate was requested with, as received (PEM). */
  csr: v.optional(v.string()),
  /** The certificate the authority signed (PEM; the sandbox authority's CA: shared/certificates/sandbox-ca.ts); absent when it delivered no file. */
  certificate: v.optional(v.string()),
  /** The issuer certificates the authority delivered with it (PEM each), the certificate's issuer first. */
  chain: v.optional(v.array(v.string())),
});
export type CertificateRecord = v.InferOutput<typeof CertificateRecord>;

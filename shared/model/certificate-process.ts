import * as v from 'valibot';
import { authorityImplementations } from '../integrations.ts';
import { WireTime } from '../schemas/primitives.ts';
import { DnsType, NonNegative, organizationChecks, Positive, ValidationLevel, ValidationStatus } from './certificate.ts';
import type { ProcessRecord, ResumeType } from './process.ts';

/**
 * The state a certificate process keeps (spec 2.9): the request as checked, the CSR's summary,
 * and the validations (organization checks and one DCV entry per name). Wire enums per contract 3.3.
 */

export const DcvType = v.picklist(['EMAIL', 'DNS', 'FILE']);
export type DcvType = v.InferOutput<typeof DcvType>;

export const CaaRecordStatus = v.picklist([
  'UNKNOWN',
  'VALID',
  'INVALID',
  'WAITING',
  'EMPTY',
  'TIMEOUT',
  'UNRECOGNIZED_CRITICAL_TAG',
  'MALFORMED_RESPONSE',
]);
export type CaaRecordStatus = v.InferOutput<typeof CaaRecordStatus>;

export const RiskStatus = v.picklist(['PASSED', 'WAITING', 'FAILED']);

/** What the CSR asks to certify, as the answer shows it ("csrSummary"). */
export const CsrSummary = v.object({
  commonName: v.optional(v.string()),
  san: v.array(v.string()),
  subject: v.object({
    organization: v.optional(v.string()),
    organizationalUnit: v.optional(v.string()),
    locality: v.optional(v.string()),
    state: v.optional(v.string()),
    country: v.optional(v.string()),
    email: v.optional(v.string()),
  }),
  keyType: v.picklist(['RSA', 'EC']),
  keySize: Positive,
  curve: v.optional(v.string()),
  signatureAlgorithm: v.string(),
  sha256: v.string(),
});
export type CsrSummary = v.InferOutput<typeof CsrSummary>;

/** A difference between the CSR and what will be certified. */
export const Mismatch = v.object({ field: v.string(), message: v.string() });
export type Mismatch = v.InferOutput<typeof Mismatch>;

/** The fields of a dcv validation entry on the wire (spec 2.9, contract 3.3 enums). */
export const dcvWireEntries = {
  commonName: v.string(),
  type: DcvType,
  email: v.optional(v.string()),
  status: ValidationStatus,
  caaRecordStatus: CaaRecordStatus,
  dnsRecord: v.optional(v.string()),
  dnsType: v.optional(DnsType),
  dnsContents: v.optional(v.string()),
  fileLocation: v.optional(v.string()),
  fileContents: v.optional(v.string()),
  riskStatus: v.optional(RiskStatus),
};

/** One DCV entry as the process keeps it: the wire fields plus where the service put the record. */
export const DcvState = v.object({
  ...dcvWireEntries,
  /** The managed zone (domain name) the service added the DNS record to, if it did. */
  zone: v.optional(v.string()),
});
export type DcvState = v.InferOutput<typeof DcvState>;

export const Validations = v.object({
  organization: v.optional(ValidationStatus),
  docs: v.optional(ValidationStatus),
  voice: v.optional(ValidationStatus),
  agreement: v.optional(ValidationStatus),
  whois: v.optional(ValidationStatus),
  dcv: v.array(DcvState),
});
export type Validations = v.InferOutput<typeof Validations>;

export const Approver = v.object({
  firstName: v.string(),
  lastName: v.string(),
  jobTitle: v.optional(v.string()),
  email: v.string(),
  voice: v.string(),
});

/** Contract 3.3 notes (deprecated on the wire, still kept). */
export const Note = v.object({ createdDate: WireTime, type: v.picklist(['INCOMING', 'OUTGOING']), message: v.string() });

/** A DNS DCV record the service added to one of the customer's managed zones (removed again when the request is cancelled). */
export const AddedDcvRecord = v.object({ zone: v.string(), name: v.string(), type: DnsType, content: v.string() });
export type AddedDcvRecord = v.InferOutput<typeof AddedDcvRecord>;

/** One resend of DCV e-mails, as the authority recorded it: when, and for which names. */
export const DcvEmailResend = v.object({ date: WireTime, commonNames: v.array(v.string()) });

/** One dns-01 challenge of an ACME order: the name, where the CA takes the answer, and the TXT record that answers it. */
export const AcmeChallenge = v.object({
  /** The name validated (`a.nl` for `*.a.nl`: the wildcard is validated on its base). */
  name: v.string(),
  authorization: v.string(),
  challenge: v.string(),
  /** `_acme-challenge.<name>`, and the value (the key authorization's digest) it must hold. */
  record: v.string(),
  value: v.string(),
  /** The managed zone the service publishes the record in; absent: the customer publishes it. */
  zone: v.optional(v.string()),
  /** The authorization's status as last read (`pending`, `valid`, `invalid`, ...). */
  status: v.string(),
});
export type AcmeChallenge = v.InferOutput<typeof AcmeChallenge>;

/** The steps of an ACME order, in order (docs/certificates.md). */
/** The steps of an ACME order; `refused`: the CA refused to issue at finalization (badCSR, ...), the order ends there. */
export const acmeSteps = ['order', 'present', 'served', 'validate', 'validating', 'finalize', 'download', 'refused'] as const;

/**
 * Where a request's order at an ACME authority stands: the step due next and what the authority
 * answered so far. The DCV job takes one step per pass and records this after each.
 */
export const AuthorityOrder = v.object({
  step: v.picklist(acmeSteps),
  /** The directory the order was placed at (so a changed setting never mixes two CAs). */
  directory: v.string(),
  /** When the step `order` was first tried: an order created but never recorded (a crash) is found again by this. */
  orderingSince: v.optional(WireTime),
  /** The run of the DCV job that claimed the step `order` (a later run finding the claim looks for the order first). */
  claimedBy: v.optional(v.string()),
  url: v.optional(v.string()),
  finalize: v.optional(v.string()),
  /** When the CA considers the order invalid (its `expires`): an order not finalized by then is replaced. */
  expires: v.optional(WireTime),
  challenges: v.array(AcmeChallenge),
  /** The DNS provider's handles of the records published, to ask whether they are served. */
  published: v.optional(v.array(v.object({ zone: v.string(), id: v.optional(v.string()) }))),
  /** Not before this time (the authority's Retry-After, or a back-off after a failure). */
  notBefore: v.optional(WireTime),
  /** Consecutive failures of the current step (back-off grows with it). */
  failures: v.optional(NonNegative),
  /** The authority's last problem (RFC 7807 detail), shown in the process's notes. */
  problem: v.optional(v.string()),
  /** How many orders of this request were replaced because an authorization expired or was deactivated at the CA. */
  replaced: v.optional(NonNegative),
  /** How many times the CA refused to withdraw the order of a cancelled request (asked again after `notBefore`). */
  withdrawals: v.optional(NonNegative),
  /** How many times challenges the CA left pending with an error were answered again (RFC 8555 8.2). */
  reanswered: v.optional(NonNegative),
});
export type AuthorityOrder = v.InferOutput<typeof AuthorityOrder>;

/** The `details` of a certificate process: the request and its validation state. */
export const CertificateProcessState = v.object({
  /** The certificate being renewed (action renew). */
  certificateId: v.optional(Positive),
  product: v.string(),
  authority: v.string(),
  /**
   * The authority implementation that opened the request (`sandbox` or `acme`, as the stage ran
   * then); the DCV job leaves a request another implementation opened alone. Absent on requests
   * recorded before it was kept: the stage's own.
   */
  openedBy: v.optional(v.picklist(authorityImplementations)),
  validationLevel: ValidationLevel,
  period: Positive,
  /** Multi-year requests: a subscription of `period` months, reissued every `certificateMonths`. */
  subscription: v.optional(v.object({ months: Positive, certificateMonths: Positive, reissues: NonNegative })),
  commonName: v.string(),
  san: v.array(v.string()),
  csr: v.string(),
  csrSummary: CsrSummary,
  mismatches: v.array(Mismatch),
  uniqueValue: v.string(),
  language: v.string(),
  authKey: v.boolean(),
  /** Organization fields of OV/EV requests, after the CSR fallbacks (organization, state, city, ...). */
  subject: v.record(v.string(), v.string()),
  approver: v.optional(Approver),
  saEmail: v.optional(v.string()),
  validations: Validations,
  /** Set when the certificate was issued at once through auth-key validation (spec 2.9). */
  issuedImmediately: v.optional(v.boolean()),
  issuedCertificateId: v.optional(Positive),
  notes: v.array(Note),
  /** The DNS records the renewal added to managed zones (absent on requests recorded before they were kept). */
  dcvRecordsAdded: v.optional(v.array(AddedDcvRecord)),
  /** Every resend of DCV e-mails (at most maxDcvEmailResends). */
  dcvEmailResends: v.optional(v.array(DcvEmailResend)),
  /** The order at an ACME authority (absent for the sandbox authority). */
  order: v.optional(AuthorityOrder),
  /** How many steps with the authority were recorded: each step's write is conditional on it, so no step is recorded twice. */
  steps: v.optional(NonNegative),
});
export type CertificateProcessState = v.InferOutput<typeof CertificateProcessState>;

/** Whether a process is still open: neither completed, cancelled nor failed. */
export function isOpen(status: ProcessRecord['status']): boolean {
  return status !== 'COMPLETED' && status !== 'CANCELLED' && status !== 'FAILED';
}

/**
 * Spec 2.9 `requiresAttention`: an open request of which an organization check or a DCV entry is
 * ATTENTION. A cancelled or finished request needs nobody's attention. The process list's filter
 * detailStatus=SSL_REQUIRES_ATTENTION selects exactly these certificate processes.
 */
export function requiresAttention(
  status: ProcessRecord['status'],
  validations: Partial<Record<(typeof organizationChecks)[number], unknown>> & { dcv?: readonly { status: string }[] },
): boolean {
  if (!isOpen(status)) return false;
  return organizationChecks.some((c) => validations[c] === 'ATTENTION') || (validations.dcv ?? []).some((e) => e.status === 'ATTENTION');
}

/** How often the DCV e-mails of one request may be sent again. */
export const maxDcvEmailResends = 10;

/** The EMAIL DCV entries still waiting for their approval: the ones a resend sends again. */
export function unapprovedEmailEntries(state: Pick<CertificateProcessState, 'validations'>): DcvState[] {
  return state.validations.dcv.filter((e) => e.type === 'EMAIL' && e.status !== 'VALIDATED');
}

/**
 * What a caller may ask of a certificate request now: a running request can be cancelled; its DCV
 * e-mails can be sent again while an EMAIL validation waits, at most maxDcvEmailResends times.
 */
export function certificateResumeTypes(process: Pick<ProcessRecord, 'status'>, state: CertificateProcessState): ResumeType[] {
  if (process.status !== 'RUNNING') return [];
  const resend = unapprovedEmailEntries(state).length > 0 && (state.dcvEmailResends?.length ?? 0) < maxDcvEmailResends;
  return resend ? ['CANCEL', 'RESEND'] : ['CANCEL'];
}

/** Whether every validation of a request is VALIDATED (organization checks it has, and every DCV entry). */
export function allValidated(validations: Validations): boolean {
  return (
    organizationChecks.every((c) => validations[c] === undefined || validations[c] === 'VALIDATED') &&
    validations.dcv.every((e) => e.status === 'VALIDATED')
  );
}

import * as v from 'valibot';
import { ValidationStatus } from '../model/certificate.ts';
import { CsrSummary, dcvWireEntries, Mismatch, Note } from '../model/certificate-process.ts';

/**
 * The views certificate and acme processes answer (spec 2.9, contract 3.3), as schemas: the
 * OpenAPI document and the answer checks use them, and the view types come from them. Kept apart
 * from shared/certificates/info.ts, which computes the views, so functions carry none of it.
 */

/** A dcv validation entry of spec 2.9 (contract 3.3 enums). */
export const DcvValidation = v.strictObject(dcvWireEntries);
export type DcvValidation = v.InferOutput<typeof DcvValidation>;

const checks = {
  organization: v.optional(ValidationStatus),
  docs: v.optional(ValidationStatus),
  voice: v.optional(ValidationStatus),
  agreement: v.optional(ValidationStatus),
};

/** What the customer must do now (an extension of spec 2.9): absent when nothing. */
export const NextAction = v.strictObject({
  message: v.string(),
  steps: v.array(
    v.strictObject({
      kind: v.picklist([
        'CREATE_DNS_RECORD',
        'FIX_DNS_RECORD',
        'WAIT_FOR_DNS_CHECK',
        'PLACE_FILE',
        'APPROVE_EMAIL',
        'FIX_CAA',
        'OPEN_VALIDATION_MANAGER',
        'WAIT_FOR_AUTHORITY',
      ]),
      commonName: v.optional(v.string()),
      message: v.string(),
    }),
  ),
});
export type NextAction = v.InferOutput<typeof NextAction>;
/** One thing the customer must do. */
export type NextActionStep = NextAction['steps'][number];

const Positive = v.pipe(v.number(), v.integer(), v.minValue(1));

/** The certificate shape's fields (renew's quote answer adds command and quote to them). */
export const certificateInfoEntries = {
  requiresAttention: v.boolean(),
  oneTimeLink: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Only while the organization, voice or agreement validation needs attention at an authority with a validation manager.',
      ),
    ),
  ),
  commonName: v.string(),
  certificateId: v.optional(v.pipe(Positive, v.description('Only when the certificate was issued at once through authKey.'))),
  validations: v.strictObject({ ...checks, whois: v.optional(ValidationStatus), dcv: v.array(DcvValidation) }),
  notes: v.optional(v.pipe(v.array(v.strictObject({ ...Note.entries })), v.description('Deprecated.'))),
  nextAction: v.optional(NextAction),
  csrSummary: v.optional(v.strictObject({ ...CsrSummary.entries })),
  mismatches: v.optional(v.array(v.strictObject({ ...Mismatch.entries }))),
  subscription: v.optional(
    v.strictObject({ months: Positive, certificateMonths: Positive, reissues: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  ),
  issuedCertificateId: v.optional(Positive),
};

/** Spec 2.9 certificate process shape (plus nextAction, csrSummary, mismatches, subscription). */
export const CertificateInfo = v.strictObject(certificateInfoEntries);
export type CertificateInfo = v.InferOutput<typeof CertificateInfo>;

/** Spec 2.9 acme process shape. */
export const AcmeInfo = v.strictObject({
  requiresAttention: v.boolean(),
  oneTimeLink: v.optional(v.string()),
  validations: v.strictObject(checks),
  nextAction: v.optional(NextAction),
});
export type AcmeInfo = v.InferOutput<typeof AcmeInfo>;

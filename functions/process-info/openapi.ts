import * as v from 'valibot';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { CsrSummary, dcvWireEntries, Mismatch, Note, ValidationStatus } from '../../shared/model/certificate.ts';
import { TransferResult } from '../transfer/openapi.ts';
import { ProcessInfoRequest } from './schema.ts';

/** A dcv validation entry of spec 2.9 (contract 3.3 enums). */
export const DcvValidation = v.strictObject(dcvWireEntries);

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

/** Spec 2.9 acme process shape. */
export const AcmeInfo = v.strictObject({
  requiresAttention: v.boolean(),
  oneTimeLink: v.optional(v.string()),
  validations: v.strictObject(checks),
  nextAction: v.optional(NextAction),
});

/** GET /v2/processes/{processId}/info in the OpenAPI document. */
export const docs: OperationDocs = {
  request: ProcessInfoRequest,
  description:
    "Context specific info on a process of the caller (spec 2.9, contract 3.3). The shape follows the process type: certificate, acme, or a domain transfer's current transfer result. Other types: 400 ValidationError. Another customer's process answers 404.",
  tags: ['Processes'],
  responses: {
    '200': {
      description: 'The process info.',
      content: {
        'application/json': {
          json: v.union([CertificateInfo, AcmeInfo, TransferResult]),
          examples: {
            acme: {
              requiresAttention: true,
              oneTimeLink:
                'https://validation-manager.sandbox.invalid/validate?token=eyJwIjo1MDIsImEiOiJzZWN0aWdvIiwiZSI6MTc5NTM5MjAwMCwibiI6IldpT0FOY1VnblpTb0RJTmZaZEcwc1gifQ.sehuRcu11FF0nhLLSiI4qljrnIsD_vIdn_Xa2zn5gZE',
              validations: { organization: 'VALIDATED', docs: 'VALIDATED', voice: 'VALIDATED', agreement: 'ATTENTION' },
              nextAction: {
                message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
                steps: [
                  {
                    kind: 'OPEN_VALIDATION_MANAGER',
                    message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
                  },
                ],
              },
            },
            transfer: {
              domainName: 'transfer-wait.com',
              status: 'pending',
              requestedDate: '2026-11-21T21:03:29Z',
              actionDate: '2026-11-26T21:03:29Z',
              type: 'IN',
              processId: 1001,
            },
          },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ValidationError', 'ObjectDoesNotExist'],
  examples: { path: { processId: '502' } },
  components: { CertificateInfo, AcmeInfo, DcvValidation, NextAction },
};

import type { AcmeProcessState } from '../model/acme.ts';
import { attentionChecks, type CertificateAuthority, organizationChecks } from '../model/certificate.ts';
import { type CertificateProcessState, type DcvState, isOpen, requiresAttention, type Validations } from '../model/certificate-process.ts';
import type { ProcessRecord } from '../model/process.ts';
import type { AcmeInfo, CertificateInfo, DcvValidation, NextAction, NextActionStep } from './info-view.ts';
import { oneTimeLink } from './one-time-link.ts';

/**
 * The process-info shapes of spec 2.9 (certificate, acme), computed from a process's stored
 * state, plus `nextAction`: what the customer must do now.
 */

type Checks = Partial<Record<(typeof organizationChecks)[number], Validations['organization']>>;

function linkFor(processId: number, authority: CertificateAuthority, checks: Checks, open: boolean, now: Date): string | undefined {
  if (!open || !authority.validationManager) return undefined;
  if (!attentionChecks.some((c) => checks[c] === 'ATTENTION')) return undefined;
  return oneTimeLink(processId, authority.name, now);
}

function dcvStep(entry: DcvState): NextActionStep | undefined {
  const name = entry.commonName;
  if (entry.status === 'VALIDATED') return undefined;
  if (entry.status === 'ATTENTION') {
    if (entry.caaRecordStatus !== 'VALID' && entry.caaRecordStatus !== 'EMPTY' && entry.caaRecordStatus !== 'UNKNOWN') {
      return {
        kind: 'FIX_CAA',
        commonName: name,
        message: `Allow the certificate authority in the CAA records of ${name} (status ${entry.caaRecordStatus}).`,
      };
    }
    return {
      kind: 'FIX_DNS_RECORD',
      commonName: name,
      message: `Set the ${entry.dnsType} record ${entry.dnsRecord} to ${entry.dnsContents}; it now has other contents.`,
    };
  }
  switch (entry.type) {
    case 'DNS':
      return entry.zone
        ? {
            kind: 'WAIT_FOR_DNS_CHECK',
            commonName: name,
            message: `Nothing to do for ${name}: the ${entry.dnsType} record ${entry.dnsRecord} was added to the zone ${entry.zone} and is checked shortly.`,
          }
        : {
            kind: 'CREATE_DNS_RECORD',
            commonName: name,
            message: `Create the ${entry.dnsType} record ${entry.dnsRecord} with contents ${entry.dnsContents}.`,
          };
    case 'FILE':
      return { kind: 'PLACE_FILE', commonName: name, message: `Publish ${entry.fileLocation} with the given fileContents.` };
    case 'EMAIL':
      return { kind: 'APPROVE_EMAIL', commonName: name, message: `Approve the validation e-mail sent to ${entry.email}.` };
  }
}

function nextActionOf(checks: Checks, dcv: readonly DcvState[], link: string | undefined, open: boolean): NextAction | undefined {
  if (!open) return undefined;
  const steps: NextActionStep[] = [];
  const needing = attentionChecks.filter((c) => checks[c] === 'ATTENTION');
  if (needing.length > 0) {
    steps.push({
      kind: 'OPEN_VALIDATION_MANAGER',
      message: link
        ? `Complete the ${needing.join(', ')} validation in the certificate authority's validation manager (oneTimeLink).`
        : `Answer the certificate authority's questions on the ${needing.join(', ')} validation.`,
    });
  }
  for (const entry of dcv) {
    const step = dcvStep(entry);
    if (step) steps.push(step);
  }
  const waiting = organizationChecks.filter((c) => checks[c] === 'WAITING');
  // Organization checks merely waiting leave the customer nothing to do: no next action then.
  if (steps.length === 0) return undefined;
  if (waiting.length > 0) {
    steps.push({ kind: 'WAIT_FOR_AUTHORITY', message: `The certificate authority is checking: ${waiting.join(', ')}.` });
  }
  return { message: steps.map((s) => s.message).join(' '), steps };
}

function wireDcv(entry: DcvState): DcvValidation {
  const { zone: _zone, ...wire } = entry;
  return wire;
}

/** Spec 2.9 certificate shape (plus csrSummary, mismatches, nextAction) for a certificate process. */
export function certificateInfo(
  process: Pick<ProcessRecord, 'id' | 'status'>,
  state: CertificateProcessState,
  authority: CertificateAuthority,
  now: Date,
): CertificateInfo {
  const open = isOpen(process.status);
  const { dcv, ...checks } = state.validations;
  const link = linkFor(process.id, authority, checks, open, now);
  const nextAction = nextActionOf(checks, dcv, link, open);
  return {
    requiresAttention: requiresAttention(process.status, state.validations),
    ...(link ? { oneTimeLink: link } : {}),
    commonName: state.commonName,
    ...(state.issuedImmediately && state.issuedCertificateId ? { certificateId: state.issuedCertificateId } : {}),
    validations: { ...checks, dcv: dcv.map(wireDcv) },
    notes: state.notes,
    ...(nextAction ? { nextAction } : {}),
    csrSummary: state.csrSummary,
    mismatches: state.mismatches,
    ...(state.subscription ? { subscription: state.subscription } : {}),
    ...(!state.issuedImmediately && state.issuedCertificateId ? { issuedCertificateId: state.issuedCertificateId } : {}),
  };
}

/** Spec 2.9 acme shape: the account's organization checks. */
export function acmeInfo(
  process: Pick<ProcessRecord, 'id' | 'status'>,
  state: AcmeProcessState,
  authority: CertificateAuthority,
  now: Date,
): AcmeInfo {
  const open = isOpen(process.status);
  const link = linkFor(process.id, authority, state.validations, open, now);
  const nextAction = nextActionOf(state.validations, [], link, open);
  return {
    requiresAttention: requiresAttention(process.status, state.validations),
    ...(link ? { oneTimeLink: link } : {}),
    validations: state.validations,
    ...(nextAction ? { nextAction } : {}),
  };
}

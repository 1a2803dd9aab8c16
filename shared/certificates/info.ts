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

async function linkFor(
  processId: number,
  authority: CertificateAuthority,
  checks: Checks,
  open: boolean,
  now: Date,
): Promise<string | undefined> {
  if (!open || !authority.validationManager) return undefined;
  if (!attentionChecks.some((c) => checks[c] === 'ATTENTION')) return undefined;
  return oneTimeLink(processId, authority.name, now);
}

/**
 * Whether the info describes a request as submitted, or a quote of one: a quote has written nothing
 * (no DCV record added, no e-mail sent, no check running), so its next action says what will
 * happen once the renewal is submitted, never that it happened.
 */
export type InfoOf = 'request' | 'quote';

/** The wording of the steps that depend on whether anything was done yet. */
const wording = {
  request: {
    zoneRecord: (e: DcvState, name: string) =>
      `Nothing to do for ${name}: the ${e.dnsType} record ${e.dnsRecord} was added to the zone ${e.zone} and is checked shortly.`,
    createRecord: (e: DcvState) =>
      e.dnsContents === undefined
        ? `Create the ${e.dnsType} record ${e.dnsRecord} with the contents given here once the certificate authority has the order (the next DCV check).`
        : `Create the ${e.dnsType} record ${e.dnsRecord} with contents ${e.dnsContents}.`,
    placeFile: (e: DcvState) => `Publish ${e.fileLocation} with the given fileContents.`,
    approveEmail: (e: DcvState) => `Approve the validation e-mail sent to ${e.email}.`,
    answer: (checks: string) => `Answer the certificate authority's questions on the ${checks} validation.`,
    waiting: (checks: string) => `The certificate authority is checking: ${checks}.`,
  },
  quote: {
    zoneRecord: (e: DcvState, name: string) =>
      `Nothing to do for ${name} once the renewal is submitted: the ${e.dnsType} record ${e.dnsRecord} will then be added to the zone ${e.zone} and checked.`,
    createRecord: (e: DcvState) =>
      `Once the renewal is submitted, create the ${e.dnsType} record ${e.dnsRecord} with the contents its answer gives.`,
    placeFile: (e: DcvState) => `Once the renewal is submitted, publish ${e.fileLocation} with the fileContents its answer gives.`,
    approveEmail: (e: DcvState) => `Once the renewal is submitted, approve the validation e-mail that will then be sent to ${e.email}.`,
    answer: (checks: string) => `Once the renewal is submitted, answer the certificate authority's questions on the ${checks} validation.`,
    waiting: (checks: string) => `Once the renewal is submitted, the certificate authority checks: ${checks}.`,
  },
} as const;

function dcvStep(entry: DcvState, of: InfoOf): NextActionStep | undefined {
  const name = entry.commonName;
  const say = wording[of];
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
        ? { kind: 'WAIT_FOR_DNS_CHECK', commonName: name, message: say.zoneRecord(entry, name) }
        : { kind: 'CREATE_DNS_RECORD', commonName: name, message: say.createRecord(entry) };
    case 'FILE':
      return { kind: 'PLACE_FILE', commonName: name, message: say.placeFile(entry) };
    case 'EMAIL':
      return { kind: 'APPROVE_EMAIL', commonName: name, message: say.approveEmail(entry) };
  }
}

function nextActionOf(
  checks: Checks,
  dcv: readonly DcvState[],
  link: string | undefined,
  open: boolean,
  of: InfoOf,
  authorityProblem?: string,
): NextAction | undefined {
  if (!open) return undefined;
  const steps: NextActionStep[] = [];
  if (authorityProblem !== undefined) {
    steps.push({
      kind: 'WAIT_FOR_AUTHORITY',
      message: `The certificate authority did not take the last step (${authorityProblem}); it is tried again by itself.`,
    });
  }
  const needing = attentionChecks.filter((c) => checks[c] === 'ATTENTION');
  if (needing.length > 0) {
    steps.push({
      kind: 'OPEN_VALIDATION_MANAGER',
      message: link
        ? `Complete the ${needing.join(', ')} validation in the certificate authority's validation manager (oneTimeLink).`
        : wording[of].answer(needing.join(', ')),
    });
  }
  for (const entry of dcv) {
    const step = dcvStep(entry, of);
    if (step) steps.push(step);
  }
  const waiting = organizationChecks.filter((c) => checks[c] === 'WAITING');
  // Organization checks merely waiting leave the customer nothing to do: no next action then.
  if (steps.length === 0) return undefined;
  if (waiting.length > 0) steps.push({ kind: 'WAIT_FOR_AUTHORITY', message: wording[of].waiting(waiting.join(', ')) });
  return { message: steps.map((s) => s.message).join(' '), steps };
}

function wireDcv(entry: DcvState): DcvValidation {
  const { zone: _zone, ...wire } = entry;
  return wire;
}

/**
 * Spec 2.9 certificate shape (plus csrSummary, mismatches, nextAction) for a certificate process,
 * or for a quote of one (`of: 'quote'`: no process exists, so no one-time link either).
 */
export async function certificateInfo(
  process: Pick<ProcessRecord, 'id' | 'status'>,
  state: CertificateProcessState,
  authority: CertificateAuthority,
  now: Date,
  of: InfoOf = 'request',
): Promise<CertificateInfo> {
  const open = isOpen(process.status);
  const { dcv, ...checks } = state.validations;
  const link = of === 'quote' ? undefined : await linkFor(process.id, authority, checks, open, now);
  const nextAction = nextActionOf(checks, dcv, link, open, of, state.order?.problem);
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
export async function acmeInfo(
  process: Pick<ProcessRecord, 'id' | 'status'>,
  state: AcmeProcessState,
  authority: CertificateAuthority,
  now: Date,
): Promise<AcmeInfo> {
  const open = isOpen(process.status);
  const link = await linkFor(process.id, authority, state.validations, open, now);
  const nextAction = nextActionOf(state.validations, [], link, open, 'request');
  return {
    requiresAttention: requiresAttention(process.status, state.validations),
    ...(link ? { oneTimeLink: link } : {}),
    validations: state.validations,
    ...(nextAction ? { nextAction } : {}),
  };
}

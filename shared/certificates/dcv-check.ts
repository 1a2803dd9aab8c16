import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import {
  closeOpenRequest,
  issueCertificate,
  recordAuthorityStep,
  recordWithdrawalAttempt,
} from '../db/repositories/certificate-requests.ts';
import { allocateCertificateId, getCertificateAuthorities, listOpenRequests } from '../db/repositories/certificates.ts';
import { getProcessById } from '../db/repositories/processes.ts';
import { logger } from '../logger.ts';
import type { CertificateAuthority } from '../model/certificate.ts';
import { type AuthorityOrder, allValidated, CertificateProcessState } from '../model/certificate-process.ts';
import { acmeOrderFailed, acmeOrderRefused, type NotificationRecord } from '../model/notification.ts';
import type { ProcessRecord } from '../model/process.ts';
import { toWireTime } from '../time.ts';
import { certificateAuthority, chosenAuthority } from './authorities.ts';
import type { CertificateAuthorityPort, Issued, RequestView } from './authority.ts';
import { issuedCertificate, requestView } from './issue.ts';
import { managedZonesFor } from './zones.ts';

/**
 * The scheduled DCV check: for every certificate request still validating, asks the authority to
 * look again (DNS records in managed zones, e-mails, files, organization checks), stores what
 * changed, and issues the certificate once everything is VALIDATED. Each process is updated under
 * a condition on its last update, so overlapping runs never issue twice.
 */

export interface CheckReport {
  checked: number;
  updated: number;
  issued: number[];
  closed: number;
  /** Cancelled requests withdrawn at their authority (an ACME order). */
  withdrawn: number;
  failed: number;
  /**
   * Requests another authority implementation opened (the demo data's sandbox requests on a stage
   * running ACME): left alone, never shown to this stage's authority.
   */
  otherAuthority: number;
}

/** A request still validating: its process and the state it keeps. */
interface OpenRequest {
  process: ProcessRecord;
  state: CertificateProcessState;
}

/** What checking one request came to: nothing new, new validations stored, lost to another run, or the id issued. */
type Outcome = 'unchanged' | 'updated' | 'raced' | number;

/** How many requests are checked at once: each check is a handful of reads and at most one transaction. */
const concurrency = 8;

/** Whether every validation of a request is VALIDATED (the model's rule, named here for the job's callers). */
export { allValidated };

/** Checks every open certificate request once, at `at`. */
export async function checkOpenRequests(at: Date, deadline = Date.now() + defaultBudgetMs): Promise<CheckReport> {
  const report: CheckReport = { checked: 0, updated: 0, issued: [], closed: 0, withdrawn: 0, failed: 0, otherAuthority: 0 };
  // This run's id: a step claimed by this run is known to be its own (acme-authority.ts).
  const run = randomUUID();
  const { open, cancelled } = await openRequests(report);
  const authorities = await getCertificateAuthorities([...open, ...cancelled].map((r) => r.state.authority));
  for (const request of cancelled) await withdraw(request, authorities, report, at);
  for (let i = 0; i < open.length; i += concurrency) {
    await Promise.all(open.slice(i, i + concurrency).map((request) => checkAndCount(request, authorities, at, report, run, deadline)));
  }
  return report;
}

/**
 * The requests the open-request markers list: those still validating, and those cancelled whose
 * marker the cancellation kept for the authority to withdraw them (an ACME order); a marker whose
 * process is gone or otherwise finished is removed (counted as closed).
 */
async function openRequests(report: CheckReport): Promise<{ open: OpenRequest[]; cancelled: OpenRequest[] }> {
  const open: OpenRequest[] = [];
  const cancelled: OpenRequest[] = [];
  for (const id of await listOpenRequests()) {
    const process = await getProcessById(id);
    if (process?.type === 'certificate' && (process.status === 'RUNNING' || process.status === 'CANCELLED')) {
      const state = v.parse(CertificateProcessState, process.details);
      if (state.openedBy !== undefined && state.openedBy !== chosenAuthority) report.otherAuthority++;
      else (process.status === 'RUNNING' ? open : cancelled).push({ process, state });
      continue;
    }
    await closeOpenRequest(id);
    report.closed++;
  }
  return { open, cancelled };
}

/** Withdraws a cancelled request at its authority, then removes its marker; a failure keeps the marker for the next run. */
async function withdraw(
  { process, state }: OpenRequest,
  authorities: Map<string, CertificateAuthority>,
  report: CheckReport,
  at: Date,
): Promise<void> {
  try {
    const authority = authorities.get(state.authority);
    if (!authority) throw new Error(`unknown certificate authority '${state.authority}'`);
    const withdrawal = await certificateAuthority(authority).withdraw(requestView(process.id, state, new Date(process.createdDate)), at);
    const stamp = toWireTime(at);
    const note = withdrawal.note ? { createdDate: stamp, type: 'INCOMING' as const, message: withdrawal.note } : undefined;
    const order = withdrawal.order ?? state.order;
    if ((withdrawal.order || note) && order) await recordWithdrawalAttempt(process, { order, ...(note ? { note } : {}), at: stamp });
    if (!withdrawal.done) return;
    await closeOpenRequest(process.id);
    report.withdrawn++;
  } catch (error) {
    report.failed++;
    logger.error('withdrawal at the authority failed', { processId: process.id, error: error as Error });
  }
}

/** Checks one request and counts the outcome; a failure is logged and counted, and the run goes on. */
async function checkAndCount(
  { process, state }: OpenRequest,
  authorities: Map<string, CertificateAuthority>,
  at: Date,
  report: CheckReport,
  run: string,
  deadline: number,
): Promise<void> {
  report.checked++;
  try {
    const authority = authorities.get(state.authority);
    if (!authority) throw new Error(`unknown certificate authority '${state.authority}'`);
    const outcome = await checkOne(process, state, certificateAuthority(authority), at, run, deadline);
    if (outcome === 'updated') report.updated++;
    else if (typeof outcome === 'number') report.issued.push(outcome);
  } catch (error) {
    report.failed++;
    logger.error('dcv check failed', { processId: process.id, error: error as Error });
  }
}

/** Most steps one request takes in one pass (each recorded before the next). */
const maxStepsPerPass = 12;
/** Until when a run without a deadline of its own (a local job run) starts steps. */
const defaultBudgetMs = 20_000;

/**
 * Takes the steps now due for one request, one at a time, recording each before the next (the
 * sandbox authority: one look; an ACME order: until a step has to wait for the CA, the DNS or the
 * customer). Stops when a step changes nothing, when another run recorded a step meanwhile, or
 * at the run's deadline (no step starts after it); issues once the authority delivers the certificate.
 */
/** The customer's notification when a step failed the order at the CA (the next order starts over, with a problem and one more failure). */
function orderFailure(
  process: ProcessRecord,
  before: AuthorityOrder | undefined,
  after: AuthorityOrder | undefined,
  at: string,
): NotificationRecord | undefined {
  if (after?.step === 'refused' && before?.step !== 'refused') return acmeOrderRefused(process, after.problem ?? '', at);
  const failed = after?.step === 'order' && after.problem !== undefined && before?.url !== undefined && after.url === undefined;
  return failed ? acmeOrderFailed(process, after.failures ?? 1, after.problem as string, at) : undefined;
}

async function checkOne(
  process: ProcessRecord,
  state: CertificateProcessState,
  gateway: CertificateAuthorityPort,
  at: Date,
  run: string,
  deadline: number,
): Promise<Outcome> {
  const zones = await managedZonesFor(
    process.customer,
    state.validations.dcv.map((e) => e.commonName),
  );
  let current = { process, state };
  let outcome: Outcome = 'unchanged';
  for (let taken = 0; taken < maxStepsPerPass && Date.now() < deadline; taken++) {
    const view = requestView(current.process.id, current.state, new Date(process.createdDate));
    const step = await gateway.advance(view, zones, at, run);
    if (step.issued) return issue(current.process, current.state, step.issued, { ...view, validations: step.validations }, at);
    const same =
      JSON.stringify(step.validations) === JSON.stringify(current.state.validations) &&
      JSON.stringify(step.order) === JSON.stringify(current.state.order) &&
      step.note === undefined;
    if (same) return outcome;
    const stamp = toWireTime(at);
    const note = step.note ? { createdDate: stamp, type: 'INCOMING' as const, message: step.note } : undefined;
    const notification = orderFailure(current.process, current.state.order, step.order, stamp);
    const recorded = await recordAuthorityStep(current.process, {
      validations: step.validations,
      ...(step.order ? { order: step.order } : {}),
      ...(note ? { note } : {}),
      ...(notification ? { notification } : {}),
      steps: current.state.steps,
      at: stamp,
    });
    if (!recorded) return 'raced';
    outcome = 'updated';
    current = {
      process: { ...current.process, updatedDate: stamp },
      state: {
        ...current.state,
        validations: step.validations,
        ...(step.order ? { order: step.order } : {}),
        notes: note ? [...current.state.notes, note] : current.state.notes,
        steps: (current.state.steps ?? 0) + 1,
      },
    };
  }
  return outcome;
}

/** Issues a validated request: the certificate, the process completed, a renewed certificate linked to it. */
async function issue(
  process: ProcessRecord,
  state: CertificateProcessState,
  issued: Issued,
  view: RequestView,
  at: Date,
): Promise<Outcome> {
  const ids = { certificate: await allocateCertificateId(), process: process.id };
  const certificate = issuedCertificate(ids, process.customer, state, issued, toWireTime(at));
  if (!(await issueCertificate(process, view.validations, certificate, state.certificateId, toWireTime(at)))) return 'raced';
  logger.info('certificate issued', { processId: process.id, certificateId: certificate.id });
  return certificate.id;
}

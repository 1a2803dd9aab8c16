import type { Principal } from '../auth/principal.ts';
import { type RenewalIds, type RenewalRecords, recordRenewal } from '../db/repositories/certificate-requests.ts';
import { type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { ObjectStatusProhibitsOperation } from '../errors.ts';
import type { CertificateProcessState } from '../model/certificate-process.ts';
import { commandOf, type Outcome, type ProcessRecord, type StartedProcess } from '../model/process.ts';
import { assertAcknowledged, type QuoteBody } from '../pricing/index.ts';
import { now as clock, toWireTime } from '../time.ts';
import type { Issued } from './authority.ts';
import { certificateInfo } from './info.ts';
import type { CertificateInfo } from './info-view.ts';
import { issuedCertificate } from './issue.ts';
import type { RenewBody } from './renew-request.ts';
import { planRenewal, type RenewalPlan } from './renewal-plan.ts';
import { addedDcvRecords, dcvRecordsToAdd } from './zones.ts';

/**
 * Certificate renewal (spec 2.7, 4.2; contract 3.2): validates the request against the product's
 * metadata and the CSR, prices it, and either answers a quote or opens a renewal process whose DCV
 * records go straight into the customer's managed zones. Auth-key requests that can be validated
 * at once are issued immediately.
 */

/** The quote of a renewal (contract 3.2): what the request would produce, with its price. */
export type RenewalQuote = CertificateInfo & QuoteBody;

/** What a renewal request ends in: the quote, or the renewal process it started. */
export type RenewalOutcome = Outcome<RenewalQuote, CertificateInfo>;

/**
 * Renews a certificate (spec 4.2), or with `quoteOnly` answers what the renewal would produce and
 * cost, changing nothing. `commitWith` is committed in the renewal's transaction, built from its
 * outcome (db/repositories/commit-with.ts).
 */
export async function renewCertificate(
  certificateId: number,
  body: RenewBody,
  principal: Principal,
  quoteOnly: boolean,
  commitWith: CommitWith<RenewalOutcome> = commitNothing,
): Promise<RenewalOutcome> {
  const at = clock();
  const plan = await planRenewal(certificateId, body, principal.customer, at);
  if (quoteOnly)
    return { quote: { ...(await certificateInfo({ id: 0, status: 'NEW' }, plan.state, plan.authority, at, 'quote')), ...plan.quote } };
  return { started: await submit(plan, body, principal, at, commitWith) };
}

/** What a renewal writes and shows for its ids, once the plan is accepted. */
interface Submission {
  plan: RenewalPlan;
  /** The request as the process keeps it (commandOf). */
  command: Record<string, unknown>;
  /** The process's state: the plan's, with the validations as they stand at submission. */
  state: CertificateProcessState;
  /** The certificate the authority issued at once; undefined when the request goes through validation. */
  issuedAtOnce: Issued | undefined;
  principal: Principal;
  at: Date;
}

/** Opens the renewal process (or issues at once): one transaction guarding one renewal per certificate. */
async function submit(
  plan: RenewalPlan,
  body: RenewBody,
  principal: Principal,
  at: Date,
  commitWith: CommitWith<RenewalOutcome>,
): Promise<StartedProcess<CertificateInfo>> {
  assertAcknowledged(plan.quote, plan.list, body.billables, at);
  const immediate = plan.atOnce !== undefined;
  const validations = plan.atOnce?.validations ?? plan.state.validations;
  const dcvRecords = dcvRecordsToAdd(validations, plan.zones);
  const added = addedDcvRecords(dcvRecords);
  const submission: Submission = {
    plan,
    command: commandOf({ certificateId: plan.certificate.id, ...body }),
    state: { ...plan.state, validations, ...(added.length > 0 ? { dcvRecordsAdded: added } : {}) },
    issuedAtOnce: plan.atOnce?.issued,
    principal,
    at,
  };
  const renewal = {
    certificateId: plan.certificate.id,
    customer: principal.customer,
    counters: plan.counters,
    issuesAtOnce: immediate,
    dcvRecords,
    at: toWireTime(at),
  };
  const ids = await recordRenewal(
    renewal,
    (claimed) => renewalRecords(submission, claimed),
    async (claimed) => commitWith({ started: await startedOf(submission, claimed) }),
  );
  if (!ids) {
    throw new ObjectStatusProhibitsOperation(
      `Certificate ${plan.certificate.id} has an open renewal or was renewed meanwhile; one renewal at a time.`,
    );
  }
  return startedOf(submission, ids);
}

/** The started renewal for its ids: the process id and the certificate process-info view. */
async function startedOf(submission: Submission, ids: RenewalIds): Promise<StartedProcess<CertificateInfo>> {
  const { process, state } = renewalRecords(submission, ids);
  return {
    processId: ids.process,
    completed: process.status === 'COMPLETED',
    view: await certificateInfo(process, state, submission.plan.authority, submission.at),
  };
}

/** The process (and the certificate issued at once) a renewal writes for its ids, and the state the process keeps. */
function renewalRecords(
  { plan, command, state, issuedAtOnce, principal, at }: Submission,
  ids: RenewalIds,
): RenewalRecords & { state: CertificateProcessState } {
  const stamp = toWireTime(at);
  const issued = issuedAtOnce
    ? issuedCertificate({ certificate: ids.certificate as number, process: ids.process }, principal.customer, state, issuedAtOnce, stamp)
    : undefined;
  const kept: CertificateProcessState = issued ? { ...state, issuedCertificateId: issued.id, issuedImmediately: true } : state;
  const process: ProcessRecord = {
    id: ids.process,
    customer: principal.customer,
    user: principal.user,
    type: 'certificate',
    action: 'renew',
    identifier: kept.commonName,
    status: issued ? 'COMPLETED' : 'RUNNING',
    createdDate: stamp,
    updatedDate: stamp,
    billables: plan.quote.quote.billables ?? [],
    command,
    ...(plan.quote.quote.currency !== undefined ? { currency: plan.quote.quote.currency } : {}),
    details: kept as unknown as Record<string, unknown>,
  };
  return { process, state: kept, ...(issued ? { issued } : {}) };
}

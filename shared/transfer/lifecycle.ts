import type { DomainRecord, KeyData } from '../model/domain.ts';
import { type ProcessRecord, refundOf } from '../model/process.ts';
import {
  canMove,
  isFinal,
  processStatusOf,
  type TransferDetails,
  type TransferLock,
  type TransferMove,
  type TransferPlan,
  transferDetailsOf,
  type ZoneEffect,
} from '../model/transfer.ts';
import { premiumPaidUntil, type TemplateRecord, type ZoneHeader } from '../model/zone.ts';
import type { RegistryTransferState } from '../registry/gateway.ts';
import { toWireTime } from '../time.ts';
import { appliedLists, newZone } from './plan.ts';

/**
 * The transfer lifecycle: what a registry answer changes in a transfer, decided without touching
 * the table. The request records the registry's first answer together with the new process
 * (shared/transfer/transfer.ts); the scheduled poller (shared/transfer/poll.ts) applies the later
 * ones when a transfer's actionDate has passed. Both write the move this module computes in one
 * transaction (shared/db/repositories/transfers.ts).
 */

/**
 * The zone to write on completion (spec 2.2), decided from the name's zone as it exists now and the
 * template: another account's zone and an already managed zone are never touched. `newId` is asked
 * only when a zone is to be created (createsZone).
 */
export function zoneEffectOf(
  plan: Pick<TransferPlan, 'zone'>,
  domainName: string,
  customer: string,
  now: string,
  existing: ZoneHeader | undefined,
  template: TemplateRecord | undefined,
  newId: number | undefined,
): ZoneEffect | undefined {
  if (plan.zone.change === 'untouched') return undefined;
  if (existing) {
    if (existing.customer !== customer || existing.managed) return undefined;
    // A PREMIUM zone the request paid for, where the caller made a plain BASIC zone of the name since: that zone made PREMIUM.
    const paid = plan.zone.change === 'created' && plan.zone.service === 'PREMIUM' && existing.service !== 'PREMIUM';
    if (!paid) return { record: { ...existing, managed: true, updatedDate: now }, create: false };
    const record = { ...existing, service: 'PREMIUM' as const, paidUntil: premiumPaidUntil(now), managed: true, updatedDate: now };
    return { record, create: false, premium: true };
  }
  if (newId === undefined) throw new Error(`A zone id is needed to create the zone of ${domainName}`);
  return { record: newZone({ id: newId, domainName, customer, plan: plan.zone, template, now }), create: true };
}

/** Whether completing a transfer with this plan creates a zone (so a zone id is needed), given the name's zone now. */
export function createsZone(plan: Pick<TransferPlan, 'zone'>, existing: ZoneHeader | undefined): boolean {
  return plan.zone.change !== 'untouched' && existing === undefined;
}

/**
 * What a registry answer changes in a transfer, computed without touching the table: the process
 * after the move; while still waiting, the name's next pending state; on completion, the domain in
 * the account with the plan applied (spec 2.1, 2.2) and its zone (`zone`, decided by the caller);
 * rejection and failure only end the process. Undefined when the answer changes nothing.
 *
 * `process` is the transfer as recorded, or, for the request's first answer, as it is about to be
 * recorded (`first`): version 1 and the first status in its history, with no move before it.
 */
export function moveOf(
  process: ProcessRecord,
  state: RegistryTransferState,
  at: Date,
  zone: ZoneEffect | undefined,
  first = false,
): TransferMove | undefined {
  const d = transferDetailsOf(process);
  const from = first ? undefined : d.status;
  if (from === state.status && state.actionDate === d.actionDate) return undefined;
  if (from !== undefined && !canMove(from, state.status)) {
    throw new Error(`The registry reported an impossible transfer move ${from} -> ${state.status} for ${d.domainName}`);
  }
  const now = toWireTime(at);
  const history = from === state.status ? d.history : [...d.history, { status: state.status, date: now }];
  const moved: TransferDetails = { ...d, status: state.status, version: first ? 1 : d.version + 1, history };
  if (!isFinal(state.status)) return waitingMove(process, moved, state, now);
  const ended: TransferDetails = { ...moved, actionDate: undefined, endDate: state.endDate ?? now };
  return state.status === 'completed' ? completedMove(process, ended, state, now, zone) : endedMove(process, ended, state, now);
}

/** The process after a move to `details` (which carry the new status). */
function movedProcess(process: ProcessRecord, details: TransferDetails, now: string): ProcessRecord {
  return { ...process, status: processStatusOf(details.status), updatedDate: now, details };
}

/** Still waiting: the process and the name's next pending state, due again at the registry's actionDate. */
function waitingMove(process: ProcessRecord, moved: TransferDetails, state: RegistryTransferState, now: string): TransferMove {
  const actionDate = state.actionDate ?? now;
  const lock: TransferLock = {
    domainName: moved.domainName,
    customer: process.customer,
    processId: process.id,
    status: moved.status,
    version: moved.version,
    requestedDate: moved.requestedDate,
    actionDate,
  };
  return { process: movedProcess(process, { ...moved, actionDate }, now), lock };
}

/** Rejected, failed or cancelled: the process ends with the registry's reason, its refundable billables refunded. */
function endedMove(process: ProcessRecord, ended: TransferDetails, state: RegistryTransferState, now: string): TransferMove {
  const details: TransferDetails = {
    ...ended,
    ...(state.reason !== undefined ? { reason: state.reason } : {}),
    refunded: process.billables.some((b) => b.refundable),
  };
  const refund = refundOf(process.billables, process.currency);
  return { process: { ...movedProcess(process, details, now), ...(refund ? { refund } : {}) } };
}

/** Completed: the process, the domain in the account with the plan applied, and the zone decided by the caller. */
function completedMove(
  process: ProcessRecord,
  ended: TransferDetails,
  state: RegistryTransferState,
  now: string,
  zone: ZoneEffect | undefined,
): TransferMove {
  const { plan } = ended;
  // A registry that says nothing of the domain: as the plan saw it before, with the expiry the plan expects.
  // What it does not tell of the lists: as the plan saw them.
  const expiryDate = state.domain?.expiryDate ?? plan.expiry?.after;
  if (expiryDate === undefined) throw new Error(`The registry completed the transfer of ${ended.domainName} without its expiry`);
  const held = { expiryDate, ns: state.domain?.ns ?? plan.nameServers.before, keyData: state.domain?.keyData ?? plan.dnssec.before };
  const details: TransferDetails = { ...ended, expiryDate: held.expiryDate, ...(zone ? { zoneId: zone.record.id } : {}) };
  return { process: movedProcess(process, details, now), domain: completedDomain(process, details, held, now), ...(zone ? { zone } : {}) };
}

/** The domain a completed transfer puts into the account (spec 2.1): the plan applied to what the registry holds. */
function completedDomain(
  process: ProcessRecord,
  d: TransferDetails,
  held: { expiryDate: string; ns: string[]; keyData: KeyData[] },
  now: string,
): DomainRecord {
  const { plan } = d;
  const lists = appliedLists(plan, held);
  return {
    domainName: d.domainName,
    customer: process.customer,
    registry: d.registry,
    registrant: plan.contacts.registrant,
    contacts: plan.contacts.contacts,
    ns: lists.ns,
    keyData: lists.keyData,
    privacyProtect: plan.privacyProtect,
    autoRenew: plan.autoRenew,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: now,
    updatedDate: now,
    expiryDate: held.expiryDate,
  };
}

import { nextId } from '../db/repositories/counters.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { listDueTransfers, readDomainCollection, recordTransferMove } from '../db/repositories/transfers.ts';
import { getTemplate } from '../db/repositories/zones.ts';
import { logger } from '../logger.ts';
import type { DomainRecord } from '../model/domain.ts';
import type { ProcessRecord } from '../model/process.ts';
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
import type { TemplateRecord, ZoneRecord } from '../model/zone.ts';
import type { RegistryTransferState } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { appliedLists, newZone } from './plan.ts';

/**
 * The transfer lifecycle: applying what the registry says to a transfer. The request records the
 * registry's first answer together with the new process (shared/transfer/transfer.ts); the
 * scheduled poller (functions/transfer-poll) applies the later ones when a transfer's actionDate
 * has passed. Every move is one transaction guarded by the pending state's version, so two workers
 * can never apply the same move twice.
 */

async function reload(process: ProcessRecord): Promise<ProcessRecord> {
  const fresh = await getProcess(process.id, process.customer);
  if (!fresh) throw new Error(`Transfer process ${process.id} vanished`);
  return fresh;
}

/**
 * The zone to write on completion (spec 2.2), decided from the name's zone as it exists now and the
 * template: another account's zone and an already managed zone are never touched. `newId` is asked
 * only when a zone is to be created (createsZone).
 */
export function zoneEffectOf(
  plan: TransferPlan,
  domainName: string,
  customer: string,
  now: string,
  existing: ZoneRecord | undefined,
  template: TemplateRecord | undefined,
  newId: number | undefined,
): ZoneEffect | undefined {
  if (plan.zone.change === 'untouched') return undefined;
  if (existing) {
    if (existing.customer !== customer || existing.managed) return undefined;
    return { record: { ...existing, managed: true, updatedDate: now }, create: false };
  }
  if (newId === undefined) throw new Error(`A zone id is needed to create the zone of ${domainName}`);
  return { record: newZone({ id: newId, domainName, customer, plan: plan.zone, template, now }), create: true };
}

/** Whether completing a transfer with this plan creates a zone (so a zone id is needed), given the name's zone now. */
export function createsZone(plan: TransferPlan, existing: ZoneRecord | undefined): boolean {
  return plan.zone.change !== 'untouched' && existing === undefined;
}

/** The poller's zone decision: the zone and template read again (the transfer may have waited days). */
async function readZoneEffect(details: TransferDetails, customer: string, now: string): Promise<ZoneEffect | undefined> {
  const { plan, domainName } = details;
  if (plan.zone.change === 'untouched') return undefined;
  const { zone } = await readDomainCollection(domainName);
  if (!createsZone(plan, zone)) return zoneEffectOf(plan, domainName, customer, now, zone, undefined, undefined);
  const template = plan.zone.template !== undefined ? await getTemplate(customer, plan.zone.template) : undefined;
  return zoneEffectOf(plan, domainName, customer, now, undefined, template, await nextId('zone'));
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
  const version = first ? 1 : d.version + 1;
  const history = from === state.status ? d.history : [...d.history, { status: state.status, date: now }];

  if (!isFinal(state.status)) {
    const actionDate = state.actionDate ?? now;
    const details: TransferDetails = { ...d, status: state.status, version, actionDate, history };
    const lock: TransferLock = {
      domainName: d.domainName,
      customer: process.customer,
      processId: process.id,
      status: state.status,
      version,
      requestedDate: d.requestedDate,
      actionDate,
    };
    return { process: { ...process, status: processStatusOf(state.status), updatedDate: now, details }, lock };
  }

  const endDate = state.endDate ?? now;
  const base: TransferDetails = { ...d, status: state.status, version, actionDate: undefined, endDate, history };
  if (state.status !== 'completed') {
    const details: TransferDetails = {
      ...base,
      ...(state.reason !== undefined ? { reason: state.reason } : {}),
      refunded: process.billables.some((b) => b.refundable),
    };
    return { process: { ...process, status: processStatusOf(state.status), updatedDate: now, details } };
  }

  const held = state.domain ?? { expiryDate: d.plan.expiry.after, ns: d.plan.nameServers.before, keyData: d.plan.dnssec.before };
  const lists = appliedLists(d.plan, held);
  const domain: DomainRecord = {
    domainName: d.domainName,
    customer: process.customer,
    registry: d.registry,
    registrant: d.plan.contacts.registrant,
    contacts: d.plan.contacts.contacts,
    ns: lists.ns,
    keyData: lists.keyData,
    privacyProtect: d.plan.privacyProtect,
    autoRenew: d.plan.autoRenew,
    status: ['ok'],
    createdDate: now,
    updatedDate: now,
    expiryDate: held.expiryDate,
  };
  const details: TransferDetails = { ...base, expiryDate: held.expiryDate, ...(zone ? { zoneId: zone.record.id } : {}) };
  return { process: { ...process, status: 'COMPLETED', updatedDate: now, details }, domain, ...(zone ? { zone } : {}) };
}

/**
 * Applies a registry answer to a recorded, running transfer (the poller) and answers the process
 * as it now stands (as another worker left it, when that one was first). Every move is one
 * transaction guarded by the pending state's version.
 */
export async function advance(process: ProcessRecord, lock: TransferLock, state: RegistryTransferState, at: Date): Promise<ProcessRecord> {
  const d = transferDetailsOf(process);
  const zone = state.status === 'completed' ? await readZoneEffect(d, process.customer, toWireTime(at)) : undefined;
  const move = moveOf(process, state, at, zone);
  if (!move) return process;
  return (await recordTransferMove(move, lock)) ? move.process : reload(process);
}

/** What one poller run did. */
export interface PollSummary {
  due: number;
  moved: number;
  completed: number;
  ended: number;
  errors: number;
}

/**
 * Asks the registry about every transfer whose actionDate is at or before `at` and applies the
 * answers (the scheduled job). One failing transfer is logged and does not stop the others.
 */
export async function pollDueTransfers(at: Date): Promise<PollSummary> {
  const due = await listDueTransfers(toWireTime(at));
  const gateway = await registryGateway();
  const summary: PollSummary = { due: due.length, moved: 0, completed: 0, ended: 0, errors: 0 };
  for (const lock of due) {
    try {
      const process = await getProcess(lock.processId, lock.customer);
      if (!process) throw new Error(`Transfer process ${lock.processId} of ${lock.domainName} is missing`);
      const d = transferDetailsOf(process);
      const state = await gateway.transferState(
        { domainName: d.domainName, registry: d.registry, requestedDate: d.requestedDate, periodMonths: d.plan.periodMonths },
        at,
      );
      const after = transferDetailsOf(await advance(process, lock, state, at));
      if (after.version !== d.version) summary.moved++;
      if (after.status === 'completed') summary.completed++;
      else if (isFinal(after.status)) summary.ended++;
    } catch (error) {
      summary.errors++;
      logger.error('transfer poll failed', { domainName: lock.domainName, processId: lock.processId, error: error as Error });
    }
  }
  return summary;
}

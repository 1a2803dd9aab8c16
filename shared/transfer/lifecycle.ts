import { nextId } from '../db/repositories/counters.ts';
import type { DomainRecord } from '../db/repositories/domains.ts';
import { getProcess, type ProcessRecord } from '../db/repositories/processes.ts';
import { getTemplate, type ZoneRecord } from '../db/repositories/zones.ts';
import { logger } from '../logger.ts';
import { isFinal, type RegistryTransferState } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { appliedLists, newZone } from './plan.ts';
import { type TransferDetails, transferDetailsOf } from './record.ts';
import { canMove, processStatusOf } from './state.ts';
import { dueTransfers, readDomainCollection, saveFinal, saveWaiting, type TransferLock } from './store.ts';

/**
 * The transfer lifecycle: applying what the registry says to a running transfer. The request
 * applies the registry's first answer; the scheduled poller (functions/transfer-poll) applies the
 * later ones when a transfer's actionDate has passed. Every move is one transaction guarded by the
 * pending state's version, so two workers can never apply the same move twice.
 */

async function reload(process: ProcessRecord): Promise<ProcessRecord> {
  const fresh = await getProcess(process.id, process.customer);
  if (!fresh) throw new Error(`Transfer process ${process.id} vanished`);
  return fresh;
}

/** The zone to write on completion, decided again from what exists now (the transfer may have waited days). */
async function zoneEffect(details: TransferDetails, customer: string, now: string): Promise<{ record: ZoneRecord; create: boolean } | undefined> {
  const plan = details.plan.zone;
  if (plan.change === 'untouched') return undefined;
  const { zone } = await readDomainCollection(details.domainName);
  if (zone) {
    // Another account's zone for the name is never touched; an already managed zone stays as it is.
    if (zone.customer !== customer || zone.managed) return undefined;
    return { record: { ...zone, managed: true, updatedDate: now }, create: false };
  }
  const template = plan.template !== undefined ? await getTemplate(customer, plan.template) : undefined;
  const id = await nextId('zone');
  return { record: newZone({ id, domainName: details.domainName, customer, plan, template, now }), create: true };
}

/**
 * Applies a registry answer to a running transfer and answers the process as it now stands (as
 * another worker left it, when that one was first). Completion puts the domain into the account
 * with the plan applied (spec 2.1, 2.2) and releases the name; rejection and failure release it.
 */
export async function advance(process: ProcessRecord, lock: TransferLock, state: RegistryTransferState, at: Date): Promise<ProcessRecord> {
  const d = transferDetailsOf(process);
  const from = d.submitted ? d.status : undefined;
  if (from === state.status && state.actionDate === d.actionDate) return process;
  if (from !== undefined && !canMove(from, state.status)) {
    throw new Error(`The registry reported an impossible transfer move ${from} -> ${state.status} for ${d.domainName}`);
  }
  const now = toWireTime(at);
  const version = d.version + 1;
  const history = from === state.status ? d.history : [...d.history, { status: state.status, date: now }];

  if (!isFinal(state.status)) {
    const actionDate = state.actionDate ?? now;
    const details: TransferDetails = { ...d, status: state.status, submitted: true, version, actionDate, history };
    const next: ProcessRecord = { ...process, status: processStatusOf(state.status), updatedDate: now, details };
    const saved = await saveWaiting(next, lock, { ...lock, status: state.status, version, actionDate });
    return saved ? next : reload(process);
  }

  const endDate = state.endDate ?? now;
  const base: TransferDetails = { ...d, status: state.status, submitted: true, version, actionDate: undefined, endDate, history };
  if (state.status !== 'completed') {
    const details: TransferDetails = {
      ...base,
      ...(state.reason !== undefined ? { reason: state.reason } : {}),
      refunded: process.billables.some((b) => b.refundable),
    };
    const next: ProcessRecord = { ...process, status: processStatusOf(state.status), updatedDate: now, details };
    return (await saveFinal(next, lock)) ? next : reload(process);
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
  const zone = await zoneEffect(d, process.customer, now);
  const details: TransferDetails = { ...base, expiryDate: held.expiryDate, ...(zone ? { zoneId: zone.record.id } : {}) };
  const next: ProcessRecord = { ...process, status: 'COMPLETED', updatedDate: now, details };
  return (await saveFinal(next, lock, { domain, ...(zone ? { zone } : {}) })) ? next : reload(process);
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
  const due = await dueTransfers(toWireTime(at));
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

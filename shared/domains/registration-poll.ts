import { nextId } from '../db/repositories/counters.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { listDueRegistrations, recordRegistrationMove } from '../db/repositories/registrations.ts';
import { readDomainCollection } from '../db/repositories/transfers.ts';
import { getTemplate } from '../db/repositories/zones.ts';
import { logger } from '../logger.ts';
import { type ProcessRecord, refundOf } from '../model/process.ts';
import { type RegistrationDetails, type RegistrationLock, type RegistrationMove, registrationDetailsOf } from '../model/registration.ts';
import type { RegistrationState } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { createsZone } from '../transfer/lifecycle.ts';
import { completedMove } from './register.ts';

/**
 * The poller's part for registrations (run by the scheduled transfer poller, functions/transfer-poll):
 * asks the registry about every pending registration whose actionDate has passed and applies its
 * answer in one transaction guarded by the pending state's version: still pending (due again),
 * completed (the domain and its zone in the account, CreateDomainEvent OK), or failed (the
 * process FAILED, its refundable billables refunded, CreateDomainEvent FAILED).
 */

export interface RegistrationPollSummary {
  due: number;
  completed: number;
  failed: number;
  errors: number;
}

export async function pollDueRegistrations(at: Date): Promise<RegistrationPollSummary> {
  const due = await listDueRegistrations(toWireTime(at));
  const summary: RegistrationPollSummary = { due: due.length, completed: 0, failed: 0, errors: 0 };
  if (due.length === 0) return summary;
  const gateway = await registryGateway();
  for (const lock of due) {
    try {
      const process = await getProcess(lock.processId, lock.customer);
      if (!process) throw new Error(`Registration process ${lock.processId} of ${lock.domainName} is missing`);
      const d = registrationDetailsOf(process);
      const state = await gateway.registrationState(
        {
          domainName: d.domainName,
          registry: d.registry,
          requestedDate: d.requestedDate,
          periodMonths: d.plan.periodMonths,
          customer: process.customer,
          ...(d.registryReference !== undefined ? { registryReference: d.registryReference } : {}),
        },
        at,
      );
      const move = await moveOf(process, d, lock, state, at);
      if (!(await recordRegistrationMove(move, lock, d.status))) continue;
      if (state.status === 'completed') summary.completed++;
      if (state.status === 'failed') summary.failed++;
    } catch (error) {
      summary.errors++;
      logger.error('registration poll failed', { domainName: lock.domainName, processId: lock.processId, error: error as Error });
    }
  }
  return summary;
}

/** What the registry's answer changes in a pending registration. */
async function moveOf(
  process: ProcessRecord,
  d: RegistrationDetails,
  lock: RegistrationLock,
  state: RegistrationState,
  at: Date,
): Promise<RegistrationMove> {
  const now = toWireTime(at);
  const version = d.version + 1;
  if (state.status === 'pending') {
    const actionDate = state.actionDate ?? toWireTime(at.getTime() + 60_000);
    // Still pending: the same status, due again (no notification: the status did not change).
    return {
      process: { ...process, updatedDate: now, details: { ...d, actionDate } },
      lock: { ...lock, version: lock.version + 1, actionDate },
    };
  }
  if (state.status === 'failed') {
    const { actionDate: _, ...rest } = d;
    const refund = refundOf(process.billables, process.currency);
    const details: RegistrationDetails = {
      ...rest,
      status: 'failed',
      version,
      ...(state.reason !== undefined ? { reason: state.reason } : {}),
      refunded: process.billables.some((b) => b.refundable),
    };
    return { process: { ...process, status: 'FAILED', updatedDate: now, details, ...(refund ? { refund } : {}) } };
  }
  // Completed: the zone decided from the name's zone as it is now (the registration may have waited).
  const { zone } = await readDomainCollection(d.domainName);
  const creates = createsZone(d.plan, zone);
  const template = creates && d.plan.zone.template !== undefined ? await getTemplate(process.customer, d.plan.zone.template) : undefined;
  return completedMove(process, { ...d, version }, state, now, zone, template, creates ? await nextId('zone') : undefined);
}

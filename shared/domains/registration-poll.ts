import { nextId } from '../db/repositories/counters.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { clearRegistrationIntent, listRegistrationIntents } from '../db/repositories/registration-intents.ts';
import { listDueRegistrations, recordRegistrationMove } from '../db/repositories/registrations.ts';
import { readDomainCollection } from '../db/repositories/transfers.ts';
import { getTemplate } from '../db/repositories/zones.ts';
import { AppError, ProviderUnavailable } from '../errors.ts';
import { logger } from '../logger.ts';
import { type ProcessRecord, refundOf } from '../model/process.ts';
import { type RegistrationDetails, type RegistrationLock, type RegistrationMove, registrationDetailsOf } from '../model/registration.ts';
import type { RegistrationState } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { createsZone } from '../transfer/lifecycle.ts';
import { completedMove, settleRegistrationIntent } from './register.ts';

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
  /**
   * Registration intents settled: found recorded, adopted (their registration recorded and charged
   * here: completed, or still pending at the registry and polled from then on), or with nothing to adopt.
   */
  intents?: { intents: number; recorded: number; adopted: number; nothing: number; errors: number };
}

/** How old an intent is before the poller settles it: its request (10 s at most) is long over, and a prompt retry has had its chance. */
export const intentSettleSeconds = 600;

/**
 * Registration intents older than intentSettleSeconds (a page a run, oldest first): each settled by
 * settleRegistrationIntent (shared/domains/register.ts) and cleared, or kept for the next run when
 * the registry cannot be asked now. One the adoption refuses (the price rose above what was
 * acknowledged, the registry's rules changed) is logged for the operator and cleared.
 */
export async function settleRegistrationIntents(at: Date): Promise<NonNullable<RegistrationPollSummary['intents']>> {
  const summary = { intents: 0, recorded: 0, adopted: 0, nothing: 0, errors: 0 };
  const intents = await listRegistrationIntents(toWireTime(at.getTime() - intentSettleSeconds * 1000));
  for (const intent of intents) {
    summary.intents++;
    const where = { domainName: intent.domainName, customer: intent.customer };
    try {
      summary[await settleRegistrationIntent(intent, at)]++;
    } catch (error) {
      summary.errors++;
      if (error instanceof ProviderUnavailable || !(error instanceof AppError)) {
        logger.warn('registration intent not settled', { ...where, error: error as Error });
        continue;
      }
      logger.error('registration made at the registry not adopted', { ...where, errorType: error.type });
    }
    await clearRegistrationIntent(intent);
  }
  return summary;
}

export async function pollDueRegistrations(at: Date): Promise<RegistrationPollSummary> {
  const due = await listDueRegistrations(toWireTime(at));
  const summary: RegistrationPollSummary = { due: due.length, completed: 0, failed: 0, errors: 0 };
  const intents = await settleRegistrationIntents(at);
  if (intents.intents > 0) summary.intents = intents;
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

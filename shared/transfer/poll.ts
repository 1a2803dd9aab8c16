import { nextId } from '../db/repositories/counters.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { listDueTransfers, readDomainCollection, recordTransferMove } from '../db/repositories/transfers.ts';
import { getTemplate } from '../db/repositories/zones.ts';
import { logger } from '../logger.ts';
import type { ProcessRecord } from '../model/process.ts';
import { isFinal, type TransferDetails, type TransferLock, transferDetailsOf, type ZoneEffect } from '../model/transfer.ts';
import type { IntentSummary, RegistryTransferState } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { createsZone, moveOf, zoneEffectOf } from './lifecycle.ts';

/**
 * The scheduled poller's use case (functions/transfer-poll): asks the registry about every transfer
 * whose actionDate has passed and applies its answer. Every move is one transaction guarded by the
 * pending state's version, so two workers can never apply the same move twice.
 */

/** What one poller run did. */
export interface PollSummary {
  due: number;
  moved: number;
  completed: number;
  ended: number;
  errors: number;
  /** With an upstream account: the intents of dead requests settled (IntentSummary). */
  intents?: IntentSummary;
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
        {
          domainName: d.domainName,
          registry: d.registry,
          requestedDate: d.requestedDate,
          periodMonths: d.plan.periodMonths,
          ...(d.registryReference !== undefined ? { registryReference: d.registryReference } : {}),
        },
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
  if (gateway.reconcile) summary.intents = await gateway.reconcile(at);
  return summary;
}

/**
 * Applies a registry answer to a recorded, running transfer and answers the process as it now
 * stands (as another worker left it, when that one was first).
 */
async function advance(process: ProcessRecord, lock: TransferLock, state: RegistryTransferState, at: Date): Promise<ProcessRecord> {
  const d = transferDetailsOf(process);
  const zone = state.status === 'completed' ? await readZoneEffect(d, process.customer, toWireTime(at)) : undefined;
  const move = moveOf(process, state, at, zone);
  if (!move) return process;
  return (await recordTransferMove(move, lock)) ? move.process : reload(process);
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

/** The process as another worker left it. */
async function reload(process: ProcessRecord): Promise<ProcessRecord> {
  const fresh = await getProcess(process.id, process.customer);
  if (!fresh) throw new Error(`Transfer process ${process.id} vanished`);
  return fresh;
}

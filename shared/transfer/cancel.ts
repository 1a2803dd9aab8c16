import type { Commitment } from '../db/repositories/commit-with.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { recordTransferMove } from '../db/repositories/transfers.ts';
import { ObjectStatusProhibitsOperation, ProviderUnavailable } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';
import { pendingStateOf, type TransferDetails, transferDetailsOf, transferResumeTypes } from '../model/transfer.ts';
import type { TransferReference } from '../registry/gateway.ts';
import { registryGateway } from '../registry/select.ts';
import { moveOf } from './lifecycle.ts';

/**
 * Cancelling a waiting transfer (DELETE /v2/processes/{processId}). The registry is asked first and
 * decides: a transfer it had already ended (completed, rejected, failed) stays as it ended, and the
 * poller records that; otherwise it cancels it. Then one transaction, guarded by the pending
 * state's version like every move of a transfer, ends the process CANCELLED with its refund and
 * releases the name. A poller run that moved the transfer meanwhile makes the guard fail: the
 * process is read again and the cancellation recorded on what it became; a poller that recorded
 * the registry's cancellation itself leaves nothing to do. Exactly one outcome either way.
 */

/** Tries before giving up on a transfer that keeps moving under the cancellation. */
const attempts = 5;

/** How the service names a transfer at the registry. */
export function referenceOf(d: TransferDetails): TransferReference {
  return {
    domainName: d.domainName,
    registry: d.registry,
    requestedDate: d.requestedDate,
    periodMonths: d.plan.periodMonths,
    ...(d.registryReference !== undefined ? { registryReference: d.registryReference } : {}),
  };
}

/** The refusal for a process that can no longer be cancelled (or whose FOA can no longer be resent). */
export function prohibited(process: ProcessRecord, what: string): ObjectStatusProhibitsOperation {
  const d = process.type === 'domain' && process.action === 'transfer' ? transferDetailsOf(process) : undefined;
  const where = d ? `${process.status}, transfer ${d.status}` : process.status;
  return new ObjectStatusProhibitsOperation(`Process ${process.id} cannot ${what} (it is ${where}).`);
}

/** The process as it is now (strongly consistent), after a guarded write lost to another writer. */
async function reread(process: ProcessRecord): Promise<ProcessRecord> {
  const fresh = await getProcess(process.id, process.customer, true);
  if (!fresh) throw new Error(`Process ${process.id} vanished`);
  return fresh;
}

/** Cancels a transfer process at `at`; answers the process as it ends, CANCELLED. */
export async function cancelTransfer(read: ProcessRecord, at: Date, commit?: (ended: ProcessRecord) => Commitment): Promise<ProcessRecord> {
  let process = read;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (process.status === 'CANCELLED' && attempt > 0) return process;
    const d = transferDetailsOf(process);
    if (!transferResumeTypes(process, d).includes('CANCEL')) throw prohibited(process, 'be cancelled');
    const state = await (await registryGateway()).cancelTransfer(referenceOf(d), at);
    if (state.status !== 'cancelled') {
      throw new ObjectStatusProhibitsOperation(
        `The registry had already ended the transfer of ${d.domainName} (${state.status}); it cannot be cancelled.`,
      );
    }
    const move = moveOf(process, state, at, undefined);
    if (move && (await recordTransferMove(move, pendingStateOf(process), commit?.(move.process)))) return move.process;
    process = await reread(process);
  }
  throw new ProviderUnavailable(`The transfer of process ${read.id} kept changing while it was cancelled; retry.`, 1);
}

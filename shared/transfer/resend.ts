import type { Commitment } from '../db/repositories/commit-with.ts';
import { withEffectSlot } from '../db/repositories/effect-slots.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { recordTransferMove } from '../db/repositories/transfers.ts';
import { ProviderUnavailable } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';
import { maxFoaResends, pendingStateOf, type TransferDetails, transferDetailsOf, transferResumeTypes } from '../model/transfer.ts';
import { registryGateway } from '../registry/select.ts';
import { toWireTime } from '../time.ts';
import { prohibited, referenceOf } from './cancel.ts';

/**
 * Sending a transfer's FOA e-mail again (POST /v2/processes/{processId}/resend), while the
 * transfer waits for it (`pendingfoa`): the registry sends it (and refuses when it no longer waits
 * for it), then one transaction records the resend on the process (`updatedDate`, `foaResent`),
 * guarded by the pending state's version, which it moves on, so a concurrent poller move and the
 * resend never overwrite each other. The registry is asked once; a lost race only rewrites ours.
 *
 * The limit (maxFoaResends) is a slot taken before the registry is asked (effect-slots.ts), so 20
 * concurrent resends send exactly the e-mails left, and the others are refused without a call. A
 * slot holder's record then only loses races to other writers of the pending state (the other
 * holders and the poller), so it tries as often as there can be such writers.
 */

const attempts = maxFoaResends + 5;

/** Resends the FOA e-mail of a transfer process at `at`; answers the process with the resend recorded. */
export async function resendFoa(read: ProcessRecord, at: Date, commit?: (resent: ProcessRecord) => Commitment): Promise<ProcessRecord> {
  let process = read;
  const resendable = (p: ProcessRecord) => transferResumeTypes(p, transferDetailsOf(p)).includes('RESEND');
  if (!resendable(process)) throw prohibited(process, 'resend its FOA e-mail');
  const d0 = transferDetailsOf(process);
  const registry = await registryGateway();
  await withEffectSlot(
    { processId: process.id, effect: 'foa-resend', recorded: d0.foaResent?.length ?? 0, max: maxFoaResends },
    () => prohibited(process, 'resend its FOA e-mail'),
    () => registry.resendFoa(referenceOf(d0), at),
  );
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (!resendable(process)) throw prohibited(process, 'resend its FOA e-mail');
    const d = transferDetailsOf(process);
    const now = toWireTime(at);
    const details: TransferDetails = { ...d, version: d.version + 1, foaResent: [...(d.foaResent ?? []), now] };
    const resent: ProcessRecord = { ...process, updatedDate: now, details };
    const previous = pendingStateOf(process);
    if (await recordTransferMove({ process: resent, lock: { ...previous, version: details.version } }, previous, commit?.(resent)))
      return resent;
    const fresh = await getProcess(process.id, process.customer, true);
    if (!fresh) throw new Error(`Process ${process.id} vanished`);
    process = fresh;
  }
  throw new ProviderUnavailable(`The transfer of process ${read.id} kept changing while its FOA was resent; retry.`, 1);
}

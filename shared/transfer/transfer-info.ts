import { getProcess, latestProcessWithIdentifier } from '../db/repositories/processes.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';
import { isTransferProcess, type TransferDetails, transferDetailsOf, transferResultOf, transferStatusMeanings } from '../model/transfer.ts';
import type { TransferInfo } from './transfer-info-view.ts';

/**
 * A transfer of the caller (`GET /v2/domains/{domainName}/transfer/{processId}`): where it stands
 * (spec 2.6), the registrar it leaves, and its log. The process must be a transfer of that
 * domain by the caller; anything else answers 404 alike. One GetItem.
 */
export async function transferInfo(domainName: string, processId: number, customer: string): Promise<TransferInfo> {
  const process = await getProcess(processId, customer);
  if (!process || !isTransferProcess(process) || process.identifier !== domainName) {
    throw new ObjectDoesNotExist('Transfer', String(processId));
  }
  return infoOf(process);
}

/**
 * The caller's latest transfer of a name (`GET /v2/domains/{domainName}/transfer`, the PHP SDK's
 * `transferInfo($domain)`), as transferInfo answers it. The name's process listing of the caller
 * is read newest first; none: 404 alike, whoever else transferred the name.
 */
export async function latestTransferInfo(domainName: string, customer: string): Promise<TransferInfo> {
  const process = await latestProcessWithIdentifier(customer, domainName, isTransferProcess);
  if (!process) throw new ObjectDoesNotExist('Transfer', domainName);
  return infoOf(process);
}

/** Where a transfer process stands, with its registrar and log. */
function infoOf(process: ProcessRecord): TransferInfo {
  const d = transferDetailsOf(process);
  return {
    ...transferResultOf(process),
    ...(d.losingRegistrar !== undefined ? { registrar: d.losingRegistrar } : {}),
    log: logOf(d),
  };
}

/**
 * Every status the transfer went through, with what it means (and the registry's reason where it
 * ended without completing), and each FOA e-mail sent again, oldest first.
 */
function logOf(d: TransferDetails): TransferInfo['log'] {
  const steps = d.history.map(({ status, date }) => ({
    date,
    status,
    message:
      (status === 'rejected' || status === 'failed') && d.reason !== undefined
        ? `${transferStatusMeanings[status]} ${d.reason}`
        : transferStatusMeanings[status],
  }));
  const resends = (d.foaResent ?? []).map((date) => ({ date, status: 'pendingfoa' as const, message: 'The FOA e-mail was sent again.' }));
  // A stable sort: a resend in the same second as a status change comes after it.
  return [...steps, ...resends].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

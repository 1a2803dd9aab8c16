import { cancelCertificateRequest } from '../certificates/cancel.ts';
import { type Commitment, type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import { getCustomer } from '../db/repositories/customers.ts';
import type { ProcessRecord } from '../model/process.ts';
import { isTransferProcess } from '../model/transfer.ts';
import { now } from '../time.ts';
import { cancelTransfer } from '../transfer/cancel.ts';
import { notOffered, ownProcess } from './own-process.ts';
import type { ProcessView } from './process-view.ts';
import { processViewOf } from './view.ts';

/**
 * Cancelling a process of the caller (DELETE /v2/processes/{processId}): a waiting transfer is
 * cancelled at the registry (shared/transfer/cancel.ts), a certificate request still validating
 * is withdrawn (shared/certificates/cancel.ts); both answer the process as it ends, CANCELLED,
 * with what was refunded. Any other process: 400 ObjectStatusProhibitsOperation.
 */

/**
 * A process whose billables may be refunded knows their currency; one recorded before processes
 * kept it was charged in the account's currency (one more read, for those only).
 */
async function withCurrency(process: ProcessRecord): Promise<ProcessRecord> {
  if (process.currency !== undefined || !process.billables.some((b) => b.refundable)) return process;
  const customer = await getCustomer(process.customer);
  return customer ? { ...process, currency: customer.currency } : process;
}

/**
 * Cancels a process of the caller; answers it as it ends. `commitWith` (an Idempotency-Key's
 * answer) commits in the same transaction as the cancellation.
 */
export async function cancelProcess(
  id: number,
  customer: string,
  commitWith: CommitWith<ProcessView> = commitNothing,
): Promise<ProcessView> {
  const process = await withCurrency(await ownProcess(id, customer));
  const at = now();
  const commit = (ended: ProcessRecord): Commitment => commitWith(processViewOf(ended));
  if (isTransferProcess(process)) return processViewOf(await cancelTransfer(process, at, commit));
  if (process.type === 'certificate') return processViewOf(await cancelCertificateRequest(process, at, commit));
  throw notOffered(process, 'be cancelled');
}

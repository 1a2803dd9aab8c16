import { changeDcv } from '../certificates/change-dcv.ts';
import type { DcvRequest } from '../certificates/renew-request.ts';
import { resendDcvEmails } from '../certificates/resend.ts';
import { type Commitment, type CommitWith, commitNothing } from '../db/repositories/commit-with.ts';
import type { ProcessRecord } from '../model/process.ts';
import { isTransferProcess } from '../model/transfer.ts';
import { now } from '../time.ts';
import { resendFoa } from '../transfer/resend.ts';
import { notOffered, ownProcess } from './own-process.ts';
import type { ProcessView } from './process-view.ts';
import { processViewOf } from './view.ts';

/**
 * Resending the e-mail a process of the caller waits on (POST /v2/processes/{processId}/resend):
 * a transfer's FOA e-mail while it is `pendingfoa` (the registry sends it, shared/transfer/resend.ts),
 * a certificate request's DCV e-mails while an EMAIL validation waits (the authority sends them,
 * shared/certificates/resend.ts); with a `dcv` list, a certificate request's DCV methods or
 * approver addresses change and those names are retried (shared/certificates/change-dcv.ts).
 * Answers the process with the resend recorded (`updatedDate`;
 * a certificate request also gets a note). Anywhere else: 400 ObjectStatusProhibitsOperation.
 */
export async function resendProcess(
  id: number,
  customer: string,
  commitWith: CommitWith<ProcessView> = commitNothing,
  dcv: readonly DcvRequest[] = [],
): Promise<ProcessView> {
  const process = await ownProcess(id, customer);
  const at = now();
  // An Idempotency-Key's answer commits in the same write as the resend.
  const commit = (resent: ProcessRecord): Commitment => commitWith(processViewOf(resent));
  if (dcv.length > 0) {
    // A `dcv` list changes and retries a certificate request's validations (shared/certificates/change-dcv.ts).
    if (process.type !== 'certificate') throw notOffered(process, 'retry a DCV');
    return processViewOf(await changeDcv(process, dcv, at, commit));
  }
  if (isTransferProcess(process)) return processViewOf(await resendFoa(process, at, commit));
  if (process.type === 'certificate') return processViewOf(await resendDcvEmails(process, at, commit));
  throw notOffered(process, 'resend an e-mail');
}

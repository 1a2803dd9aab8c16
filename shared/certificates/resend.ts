import { recordDcvEmailResend } from '../db/repositories/certificate-requests.ts';
import type { Commitment } from '../db/repositories/commit-with.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { certificateResumeTypes, maxDcvEmailResends, unapprovedEmailEntries } from '../model/certificate-process.ts';
import type { ProcessRecord } from '../model/process.ts';
import { certificateStateOf, gatewayFor, prohibited } from './cancel.ts';
import { requestView } from './issue.ts';

/**
 * Sending a certificate request's DCV e-mails again (POST /v2/processes/{processId}/resend), for
 * every EMAIL validation still waiting for its approval: the authority sends them and answers its
 * record of the resend; one conditional write keeps that record and a note on the process (and
 * moves `updatedDate`), while the request still runs and has been resent fewer than
 * maxDcvEmailResends times. It leaves the validations alone, so it never overwrites what the DCV
 * check records meanwhile.
 */
export async function resendDcvEmails(
  process: ProcessRecord,
  at: Date,
  commit?: (resent: ProcessRecord) => Commitment,
): Promise<ProcessRecord> {
  const state = certificateStateOf(process);
  if (!certificateResumeTypes(process, state).includes('RESEND')) throw prohibited(process, 'resend its DCV e-mails');
  const entries = unapprovedEmailEntries(state);
  const gateway = await gatewayFor(process, state);
  const resend = await gateway.resendDcvEmails(requestView(process.id, state, new Date(process.createdDate)), entries, at);
  const to = entries.map((e) => `${e.commonName} (to ${e.email})`).join(', ');
  const note = { createdDate: resend.date, type: 'OUTGOING' as const, message: `The DCV e-mail was sent again for ${to}.` };
  const details = { ...state, notes: [...state.notes, note], dcvEmailResends: [...(state.dcvEmailResends ?? []), resend] };
  const resent: ProcessRecord = { ...process, updatedDate: resend.date, details };
  if (!(await recordDcvEmailResend(process.id, resend, note, maxDcvEmailResends, commit?.(resent)))) {
    throw prohibited((await getProcess(process.id, process.customer, true)) ?? process, 'resend its DCV e-mails');
  }
  return resent;
}

import { recordDcvChange } from '../db/repositories/certificate-requests.ts';
import type { Commitment } from '../db/repositories/commit-with.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { ProviderUnavailable, ValidationError, type Violation } from '../errors.ts';
import { maxDcvEmailResends } from '../model/certificate-process.ts';
import type { ProcessRecord } from '../model/process.ts';
import type { DcvChoice } from './authority.ts';
import { certificateStateOf, gatewayFor, prohibited } from './cancel.ts';
import { checkDcvEntry } from './dcv.ts';
import { requestView } from './issue.ts';
import type { DcvRequest } from './renew-request.ts';

/**
 * Resending with a `dcv` list (POST /v2/processes/{processId}/resend, the SDKs' resendDcv): the
 * method (EMAIL, DNS, FILE) or approver address of the named names of a request still validating
 * changes, and those names are retried: their entries wait again with the new instructions and an
 * EMAIL one's approval e-mail is sent again. Every name must be one of the request's, not yet
 * validated, listed once, and each entry follows the rules of a renewal's `dcv` entries. One write
 * (the validations, the resend and a note) under a condition on the process's last update, so it
 * never overwrites what the DCV check found meanwhile; it counts as one of the request's
 * maxDcvEmailResends resends.
 */
export async function changeDcv(
  process: ProcessRecord,
  changes: readonly DcvRequest[],
  at: Date,
  commit?: (changed: ProcessRecord) => Commitment,
): Promise<ProcessRecord> {
  const state = certificateStateOf(process);
  if (process.status !== 'RUNNING' || (state.dcvEmailResends?.length ?? 0) >= maxDcvEmailResends) {
    throw prohibited(process, 'retry its DCV');
  }
  const violations: Violation[] = [];
  const seen = new Set<string>();
  changes.forEach((entry, i) => {
    const field = `dcv[${i}]`;
    const current = state.validations.dcv.find((e) => e.commonName === entry.commonName);
    if (!current) {
      const names = state.validations.dcv.map((e) => e.commonName).join(', ');
      violations.push({ field: `${field}.commonName`, message: `is not a name of this request (${names})`, value: entry.commonName });
      return;
    }
    if (seen.has(entry.commonName)) violations.push({ field: `${field}.commonName`, message: 'is listed twice', value: entry.commonName });
    if (current.status === 'VALIDATED')
      violations.push({ field: `${field}.commonName`, message: 'is validated already', value: entry.commonName });
    seen.add(entry.commonName);
    checkDcvEntry(entry, field, violations);
  });
  if (violations.length > 0) throw new ValidationError('The DCV entries cannot be changed.', violations);
  const choices: DcvChoice[] = changes.map((c) => ({ commonName: c.commonName, type: c.type, ...(c.email ? { email: c.email } : {}) }));
  const gateway = await gatewayFor(process, state);
  const { entries, resend } = await gateway.changeDcv(requestView(process.id, state, new Date(process.createdDate)), choices, at);
  const changed = new Map(entries.map((e) => [e.commonName, e]));
  const validations = { ...state.validations, dcv: state.validations.dcv.map((e) => changed.get(e.commonName) ?? e) };
  const what = entries
    .map((e) => (e.type === 'EMAIL' ? `${e.commonName} by EMAIL (to ${e.email})` : `${e.commonName} by ${e.type}`))
    .join(', ');
  const note = { createdDate: resend.date, type: 'OUTGOING' as const, message: `The DCV was retried for ${what}.` };
  const details = { ...state, validations, notes: [...state.notes, note], dcvEmailResends: [...(state.dcvEmailResends ?? []), resend] };
  const result: ProcessRecord = { ...process, updatedDate: resend.date, details };
  if (await recordDcvChange(process, validations, resend, note, maxDcvEmailResends, commit?.(result))) return result;
  const fresh = (await getProcess(process.id, process.customer, true)) ?? process;
  if (fresh.status !== 'RUNNING' || (certificateStateOf(fresh).dcvEmailResends?.length ?? 0) >= maxDcvEmailResends) {
    throw prohibited(fresh, 'retry its DCV');
  }
  // The DCV check recorded new findings between the read and the write: nothing was written; a retry reads them.
  throw new ProviderUnavailable(`Process ${process.id} changed while its DCV was retried; retry.`, 1);
}

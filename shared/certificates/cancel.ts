import * as v from 'valibot';
import { recordCertificateCancel } from '../db/repositories/certificate-requests.ts';
import type { Commitment } from '../db/repositories/commit-with.ts';
import { getProcess } from '../db/repositories/processes.ts';
import type { ZoneRecordRef } from '../db/repositories/zone-writes.ts';
import { ObjectStatusProhibitsOperation, ProviderUnavailable } from '../errors.ts';
import {
  type CertificateProcessState,
  certificateResumeTypes,
  CertificateProcessState as StateSchema,
} from '../model/certificate-process.ts';
import { type ProcessRecord, refundOf } from '../model/process.ts';
import { toWireTime } from '../time.ts';
import { authorityDesk } from './authorities.ts';
import { catalogueAuthority } from './catalogue.ts';
import { requestView } from './issue.ts';

/**
 * Cancelling a certificate request that is still validating (DELETE /v2/processes/{processId}):
 * the authority withdraws it (an ACME order: the DCV job does, after the transaction, so no call
 * to the CA waits inside the request), then one transaction ends the process CANCELLED (refunding its
 * refundable billables, with a note), stops the DCV check from looking at it, lets the renewed
 * certificate be renewed again, and removes the DNS DCV records the request added to the caller's
 * zones. The process must still be RUNNING when the transaction commits: racing the DCV check,
 * exactly one of issuing and cancelling happens.
 */

/** Tries before giving up on zones that keep changing under the cancellation. */
const attempts = 3;

/** The state a certificate process keeps (parsed: a malformed record fails loudly). */
export function certificateStateOf(process: ProcessRecord): CertificateProcessState {
  return v.parse(StateSchema, process.details);
}

/** The refusal for a request that can no longer be cancelled or resent. */
export function prohibited(process: ProcessRecord, what: string): ObjectStatusProhibitsOperation {
  return new ObjectStatusProhibitsOperation(`Process ${process.id} cannot ${what} (it is ${process.status}).`);
}

/**
 * The DNS records the request added: as recorded when it was opened, or, for a request recorded
 * before they were kept, the DNS entries the service placed in a managed zone.
 */
function addedRecords(state: CertificateProcessState): ZoneRecordRef[] {
  if (state.dcvRecordsAdded) return state.dcvRecordsAdded;
  return state.validations.dcv.flatMap((e) =>
    e.type === 'DNS' && e.zone && e.dnsRecord && e.dnsType && e.dnsContents
      ? [{ zone: e.zone, name: e.dnsRecord, type: e.dnsType, content: e.dnsContents }]
      : [],
  );
}

/** What the customer's requests may ask of a request's authority (configuration, cached). */
export async function gatewayFor(process: ProcessRecord, state: CertificateProcessState) {
  const authority = await catalogueAuthority(state.authority);
  if (!authority) throw new Error(`Process ${process.id} names unknown certificate authority '${state.authority}'`);
  return authorityDesk(authority);
}

/** Cancels a certificate request at `at`; answers the process as it ends, CANCELLED. */
export async function cancelCertificateRequest(
  process: ProcessRecord,
  at: Date,
  commit?: (ended: ProcessRecord) => Commitment,
): Promise<ProcessRecord> {
  const state = certificateStateOf(process);
  if (!certificateResumeTypes(process, state).includes('CANCEL')) throw prohibited(process, 'be cancelled');
  const { withdrawLater } = await (await gatewayFor(process, state)).cancel(
    requestView(process.id, state, new Date(process.createdDate)),
    at,
  );
  const now = toWireTime(at);
  const refund = refundOf(process.billables, process.currency);
  const note = { createdDate: now, type: 'OUTGOING' as const, message: 'Cancelled at the request of the customer.' };
  const details = { ...state, notes: [...state.notes, note] };
  const ended: ProcessRecord = { ...process, status: 'CANCELLED', updatedDate: now, ...(refund ? { refund } : {}), details };
  for (let attempt = 0; attempt < attempts; attempt++) {
    const outcome = await recordCertificateCancel({
      process,
      ...(state.certificateId !== undefined ? { renews: state.certificateId } : {}),
      ...(refund ? { refund } : {}),
      note,
      at: now,
      dcvRecords: addedRecords(state),
      withdrawLater,
      ...(commit ? { commitment: commit(ended) } : {}),
    });
    if (outcome === 'cancelled') return ended;
    if (outcome === 'raced') {
      const fresh = await getProcess(process.id, process.customer, true);
      if (fresh?.status === 'CANCELLED') return fresh;
      throw prohibited(fresh ?? process, 'be cancelled');
    }
  }
  throw new ProviderUnavailable(`The zones of process ${process.id} kept changing while it was cancelled; retry.`, 1);
}

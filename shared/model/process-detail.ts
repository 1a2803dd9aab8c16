import * as v from 'valibot';
import { CertificateProcessState, requiresAttention } from './certificate-process.ts';
import type { ProcessRecord } from './process.ts';
import { isTransferProcess, transferDetailsOf } from './transfer.ts';

/**
 * Where a process stands beyond its status (`statusDetail` of the API, `detailStatus` of its
 * filters): a transfer's own status; SSL_REQUIRES_ATTENTION for a certificate request needing
 * attention; nothing otherwise. Here, below the data layer, because the process counts the
 * repositories keep (shared/db/repositories/process-counts.ts) count processes by it.
 */

/** The value `detailStatus` filters on: `SSL_REQUIRES_ATTENTION` for a certificate request needing attention. */
export const sslRequiresAttention = 'SSL_REQUIRES_ATTENTION';

/** The certificate state of a certificate process (parsed: a malformed record fails loudly). */
export function certificateStateOf(process: ProcessRecord): CertificateProcessState | undefined {
  return process.type === 'certificate' ? v.parse(CertificateProcessState, process.details) : undefined;
}

/** A process's detail status, if it has one. */
export function detailStatusOf(process: ProcessRecord): string | undefined {
  if (isTransferProcess(process)) return transferDetailsOf(process).status;
  // A zone's key rollover (shared/dns/key-rollover.ts) waits for the parent's DS while it runs.
  if (process.type === 'dnsZone' && process.action === 'keyRollover') return process.status === 'RUNNING' ? 'WAITING_FOR_DS' : undefined;
  const state = certificateStateOf(process);
  return state && requiresAttention(process.status, state.validations) ? sslRequiresAttention : undefined;
}

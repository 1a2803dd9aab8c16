import type { ProcessRecord } from '../db/repositories/processes.ts';
import { isFinal, type TransferStatus } from '../registry/gateway.ts';

/**
 * The transfer state machine (spec section 3; the spec leaves the transitions open, these are the
 * service's, documented in docs/transfer.md). A transfer starts in whatever status the registry
 * first answers; from then on it may only move along this table. Final statuses never move.
 */
export const transitions: Readonly<Record<TransferStatus, readonly TransferStatus[]>> = {
  // Waiting for registrant data; then the authorisation mail, validation or the registry.
  pendingwhois: ['pendingfoa', 'pendingvalidation', 'pending', 'approved', 'completed', 'rejected', 'failed', 'cancelled'],
  // Waiting for an authorised contact to approve (FOA).
  pendingfoa: ['pendingvalidation', 'approved', 'pending', 'completed', 'rejected', 'failed', 'cancelled'],
  // Waiting for registrant verification.
  pendingvalidation: ['approved', 'pending', 'completed', 'rejected', 'failed', 'cancelled'],
  // Waiting at the registry (the losing side may approve or reject; gTLDs auto-approve after 5 days).
  pending: ['approved', 'completed', 'rejected', 'failed', 'cancelled'],
  // Approved by a contact or the losing side; the registry still has to execute it.
  approved: ['pending', 'completed', 'failed', 'cancelled'],
  completed: [],
  rejected: [],
  failed: [],
  cancelled: [],
};

/** Whether a transfer may move from one status to another (staying put is always allowed while waiting). */
export function canMove(from: TransferStatus, to: TransferStatus): boolean {
  if (from === to) return !isFinal(from);
  return transitions[from].includes(to);
}

/** Whether a script of statuses (first answer, then each next one) follows the table. */
export function isValidPath(path: readonly TransferStatus[]): boolean {
  for (let i = 1; i < path.length; i++) {
    if (!canMove(path[i - 1] as TransferStatus, path[i] as TransferStatus)) return false;
  }
  return true;
}

/** The process status (contract section 5) that goes with a transfer status. */
export function processStatusOf(status: TransferStatus): ProcessRecord['status'] {
  switch (status) {
    case 'completed':
      return 'COMPLETED';
    case 'rejected':
    case 'failed':
      return 'FAILED';
    case 'cancelled':
      return 'CANCELLED';
    default:
      return 'RUNNING';
  }
}

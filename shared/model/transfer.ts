import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';
import { DomainContact, type DomainRecord, KeyData } from './domain.ts';
import type { ProcessRecord, ResumeType } from './process.ts';
import type { ZoneHeader, ZoneRecord } from './zone.ts';

/**
 * The transfer's vocabulary in one place (spec section 3, contract 3.1 and 5): its statuses, the
 * state machine they move along, what a transfer process keeps in `details`, the domain's pending
 * state while a transfer runs, and what a registry answer changes (a move).
 */

/** The statuses in which a transfer still waits for someone (the registry, a contact, the losing side). */
export const waitingStatuses = ['pendingwhois', 'pendingfoa', 'pendingvalidation', 'pending', 'approved'] as const;
export const WaitingStatus = v.picklist(waitingStatuses);
export type WaitingStatus = v.InferOutput<typeof WaitingStatus>;

/** The statuses that end a transfer. */
export const finalStatuses = ['cancelled', 'rejected', 'failed', 'completed'] as const;
export type FinalStatus = (typeof finalStatuses)[number];

/** Transfer statuses (spec section 3, in its order): the waiting ones, then the final ones. */
export const transferStatuses = [...waitingStatuses, ...finalStatuses] as const;
export const TransferStatus = v.picklist(transferStatuses);
export type TransferStatus = v.InferOutput<typeof TransferStatus>;

/** Whether a transfer status ends the transfer. */
export function isFinal(status: TransferStatus): status is FinalStatus {
  return (finalStatuses as readonly string[]).includes(status);
}

/** Statuses in which the registrant (or its contact) must still act: a designated agent cannot act for them. */
export const registrantInteractionStatuses: readonly TransferStatus[] = ['pendingwhois', 'pendingfoa', 'pendingvalidation'];

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

/**
 * What a transfer process keeps in `details` (the process record itself is contract section 5):
 * where the transfer stands, what it will change (the plan), and what was applied.
 */

const Change = v.picklist(['kept', 'replaced', 'removed']);

/** The zone part of a plan: what happens to the domain's DNS zone on completion (spec 2.2). */
export const ZonePlan = v.object({
  change: v.picklist(['created', 'converted', 'untouched']),
  /** Whether a zone of the service exists for the domain in the caller's account (before). */
  exists: v.boolean(),
  service: v.optional(v.picklist(['BASIC', 'PREMIUM'])),
  template: v.optional(v.string()),
  link: v.optional(v.boolean()),
  master: v.optional(v.string()),
  dnssec: v.optional(v.boolean()),
});
export type ZonePlan = v.InferOutput<typeof ZonePlan>;

/** What a transfer will change (the `plan` of a quote; kept on the process and applied on completion). */
export const TransferPlan = v.object({
  periodMonths: v.number(),
  /** Absent when the registry does not tell the current expiry (an upstream account's quote). */
  expiry: v.optional(v.object({ before: WireTime, after: WireTime })),
  nameServers: v.object({ change: Change, before: v.array(v.string()), after: v.array(v.string()) }),
  dnssec: v.object({ change: Change, before: v.array(KeyData), after: v.array(KeyData) }),
  zone: ZonePlan,
  contacts: v.object({ registrant: v.string(), contacts: v.array(DomainContact) }),
  privacyProtect: v.boolean(),
  autoRenew: v.boolean(),
  designatedAgent: v.object({
    requested: v.picklist(['NONE', 'OLD', 'NEW', 'BOTH']),
    applied: v.picklist(['NONE', 'NEW']),
    note: v.optional(v.string()),
  }),
});
export type TransferPlan = v.InferOutput<typeof TransferPlan>;

/** The transfer's state in a process's `details`. */
export const TransferDetails = v.object({
  domainName: v.string(),
  registry: v.string(),
  extension: v.string(),
  type: v.literal('IN'),
  status: TransferStatus,
  /** Bumped on every change; the domain's pending-state item carries the same number (optimistic lock). */
  version: v.pipe(v.number(), v.integer()),
  requestedDate: WireTime,
  actionDate: v.optional(WireTime),
  endDate: v.optional(WireTime),
  expiryDate: v.optional(WireTime),
  reason: v.optional(v.string()),
  plan: TransferPlan,
  /** Accepted and recorded (contract 3.1); the sandbox registry needs neither. */
  transferContacts: v.optional(v.array(v.string())),
  languageCode: v.optional(v.string()),
  /** Every status the transfer went through, with when. */
  history: v.array(v.object({ status: TransferStatus, date: WireTime })),
  /** Set on completion: the zone created or converted. */
  zoneId: v.optional(v.number()),
  /** Set when a rejected, failed or cancelled transfer's refundable billables were refunded. */
  refunded: v.optional(v.boolean()),
  /** The registrar the domain leaves (the losing side), as the registry named it when the transfer was requested. */
  losingRegistrar: v.optional(v.string()),
  /** The registry's own id of the transfer (the process id of an upstream account). */
  registryReference: v.optional(v.string()),
  /** When the registry sent the FOA e-mail again, at the customer's request (at most maxFoaResends). */
  foaResent: v.optional(v.array(WireTime)),
});
export type TransferDetails = v.InferOutput<typeof TransferDetails>;

/** How often the FOA e-mail of one transfer may be sent again (the registry is asked each time). */
export const maxFoaResends = 10;

/**
 * What a caller may ask of a transfer now: every waiting transfer can be cancelled (the registry
 * cancels it while it has not ended); the FOA e-mail can be sent again while the transfer waits
 * for it (`pendingfoa`), at most maxFoaResends times.
 */
export function transferResumeTypes(process: Pick<ProcessRecord, 'status'>, details: TransferDetails): ResumeType[] {
  if (process.status !== 'RUNNING' || isFinal(details.status)) return [];
  const resend = details.status === 'pendingfoa' && (details.foaResent?.length ?? 0) < maxFoaResends;
  return resend ? ['CANCEL', 'RESEND'] : ['CANCEL'];
}

/** What each transfer status means (spec section 3), as the transfer log says it. */
export const transferStatusMeanings: Readonly<Record<TransferStatus, string>> = {
  pendingwhois: 'Pending for whois information.',
  pendingfoa: 'Pending approval from an authorized contact.',
  pendingvalidation: 'Pending registrant validation.',
  pending: 'Pending at the registry.',
  approved: 'Approved by an authorized contact.',
  cancelled: 'Cancelled by the customer.',
  rejected: 'Rejected by the registry or the registrant.',
  failed: 'The transfer has failed.',
  completed: 'The transfer is completed.',
};

/** Whether a process is a domain transfer. */
export function isTransferProcess(process: ProcessRecord): boolean {
  return process.type === 'domain' && process.action === 'transfer';
}

/** A transfer process's details, parsed (a malformed record fails loudly). */
export function transferDetailsOf(process: ProcessRecord): TransferDetails {
  return v.parse(TransferDetails, process.details);
}

/**
 * The transfer result of spec 2.6 / contract 3.1 (also what process info answers for a transfer).
 * Only the API description reads the schema itself; built in a call marked pure so that esbuild
 * leaves it out of the functions that use just the type (it keeps a bare schema call otherwise).
 */
export const TransferResult = /* @__PURE__ */ (() =>
  v.strictObject({
    domainName: v.string(),
    status: TransferStatus,
    requestedDate: WireTime,
    expiryDate: v.optional(v.pipe(WireTime, v.description('Only when the status is `completed`.'))),
    actionDate: v.optional(v.pipe(WireTime, v.description('When the current (waiting) status expires; only while waiting.'))),
    type: v.picklist(['IN', 'OUT']),
    processId: v.pipe(v.number(), v.integer(), v.minValue(1)),
  }))();
export type TransferResult = v.InferOutput<typeof TransferResult>;

/**
 * Renders a transfer process in the spec 2.6 shape with its current status: `expiryDate` only when
 * completed, `actionDate` only while waiting. Used by the transfer endpoint and by process info
 * (contract 3.3).
 */
export function transferResultOf(process: ProcessRecord): TransferResult {
  const d = transferDetailsOf(process);
  const status: TransferStatus = d.status;
  return {
    domainName: d.domainName,
    status,
    requestedDate: d.requestedDate,
    ...(status === 'completed' && d.expiryDate ? { expiryDate: d.expiryDate } : {}),
    ...(d.actionDate && !isFinal(status) ? { actionDate: d.actionDate } : {}),
    type: 'IN',
    processId: process.id,
  };
}

/** The domain's pending state while a transfer runs. */
export const TransferLock = v.object({
  domainName: v.string(),
  customer: Handle,
  processId: v.number(),
  status: TransferStatus,
  version: v.number(),
  requestedDate: WireTime,
  /** When the poller should ask the registry again. */
  actionDate: WireTime,
});
export type TransferLock = v.InferOutput<typeof TransferLock>;

/**
 * The name's pending state as a running transfer process implies it (the two carry the same
 * version): what a later move of the transfer is guarded by.
 */
export function pendingStateOf(process: ProcessRecord): TransferLock {
  const d = transferDetailsOf(process);
  if (isFinal(d.status) || d.actionDate === undefined) throw new Error(`Transfer process ${process.id} is not waiting`);
  return {
    domainName: d.domainName,
    customer: process.customer,
    processId: process.id,
    status: d.status,
    version: d.version,
    requestedDate: d.requestedDate,
    actionDate: d.actionDate,
  };
}

/** The zone a completion writes: a new zone with its records (`create`), or the account's own unmanaged zone, now managed. */
export type ZoneEffect =
  | { create: true; record: ZoneRecord }
  /** The caller's plain zone made managed; `premium`: made PREMIUM too (the request paid for a PREMIUM zone). */
  | { create: false; record: ZoneHeader; premium?: true };

/** What a registry answer changes in a transfer: written in one transaction (shared/db/repositories/transfers.ts). */
export interface TransferMove {
  process: ProcessRecord;
  /** Still waiting: the name's next pending state. */
  lock?: TransferLock;
  /** Completed: the domain in the account, and its zone. */
  domain?: DomainRecord;
  zone?: ZoneEffect;
}

import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';
import { ChargedBillable } from './billable.ts';

export { ChargedBillable };

/** Process statuses (contract section 5). */
export const processStatuses = [
  'NEW',
  'VALIDATED',
  'RUNNING',
  'COMPLETED',
  'INVALID',
  'CANCELLED',
  'FAILED',
  'IN_DOUBT',
  'SCHEDULED',
  'SUSPENDED',
] as const;
export const ProcessStatus = v.picklist(processStatuses);
export type ProcessStatus = v.InferOutput<typeof ProcessStatus>;

/** Amounts per currency (`{"EUR": 449}`), in cents: what a process refunded. */
export const Amounts = v.record(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)), v.pipe(v.number(), v.integer(), v.minValue(0)));
export type Amounts = v.InferOutput<typeof Amounts>;

/**
 * A process (contract section 5). `details` holds the type-specific state (transfer result,
 * certificate validations, ...), parsed by the module that owns that type. `user` is the login of
 * the user who started it (the API writes it `<customer>/<login>`). `command` is the request that
 * started it, secrets left out (commandOf); `currency` the currency its billables were charged in;
 * `refund` what was refunded when it ended without completing.
 */
export const ProcessRecord = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  customer: Handle,
  user: v.string(),
  type: v.string(),
  action: v.string(),
  identifier: v.string(),
  status: ProcessStatus,
  createdDate: WireTime,
  updatedDate: WireTime,
  billables: v.array(ChargedBillable),
  command: v.optional(v.record(v.string(), v.unknown())),
  currency: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/))),
  refund: v.optional(Amounts),
  details: v.optional(v.record(v.string(), v.unknown())),
});
export type ProcessRecord = v.InferOutput<typeof ProcessRecord>;

/** What a caller may ask of a running process (the SDKs' resume types CANCEL and RESEND). */
export const ResumeType = v.picklist(['CANCEL', 'RESEND']);
export type ResumeType = v.InferOutput<typeof ResumeType>;

/** Request fields a process never keeps in its `command`: the same secrets the logs never show. */
const secretCommandFields = new Set(['authcode', 'csr', 'voice']);

/**
 * The command a process keeps: the request's fields (and what the path named), with every secret
 * field left out at any depth, so that reading a process never shows an auth code, a CSR or a
 * phone number.
 */
export function commandOf(fields: Record<string, unknown>): Record<string, unknown> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key, item]) => !secretCommandFields.has(key) && item !== undefined)
        .map(([key, item]) => [key, strip(item)]),
    );
  };
  return strip(fields) as Record<string, unknown>;
}

/** The refund of a process that ended without completing: its refundable billables, in the currency they were charged in. */
export function refundOf(billables: readonly v.InferOutput<typeof ChargedBillable>[], currency: string | undefined): Amounts | undefined {
  const total = billables.filter((b) => b.refundable).reduce((sum, b) => sum + b.total, 0);
  return total > 0 && currency !== undefined ? { [currency]: total } : undefined;
}

/** A process a state-changing use case started: its id, whether it was done at once, and what the caller is shown. */
export interface StartedProcess<V> {
  processId: number;
  completed: boolean;
  view: V;
}

/** What a state-changing request ends in (contract section 4): a quote (nothing written), or the process it started. */
export type Outcome<Q, V> = { quote: Q } | { started: StartedProcess<V> };

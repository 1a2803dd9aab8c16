import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';
import { ChargedBillable } from './billable.ts';

export { ChargedBillable };

/** Process statuses (contract section 5). */
export const ProcessStatus = v.picklist([
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
]);

/**
 * A process (contract section 5). `details` holds the type-specific state (transfer result,
 * certificate validations, ...), parsed by the module that owns that type.
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
  details: v.optional(v.record(v.string(), v.unknown())),
});
export type ProcessRecord = v.InferOutput<typeof ProcessRecord>;

/** A process a state-changing use case started: its id, whether it was done at once, and what the caller is shown. */
export interface StartedProcess<V> {
  processId: number;
  completed: boolean;
  view: V;
}

/** What a state-changing request ends in (contract section 4): a quote (nothing written), or the process it started. */
export type Outcome<Q, V> = { quote: Q } | { started: StartedProcess<V> };

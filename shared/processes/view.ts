import { certificateResumeTypes } from '../model/certificate-process.ts';
import type { ProcessRecord, ResumeType } from '../model/process.ts';
import { certificateStateOf, detailStatusOf, sslRequiresAttention } from '../model/process-detail.ts';
import { isTransferProcess, transferDetailsOf, transferResumeTypes } from '../model/transfer.ts';
import type { ProcessField, ProcessSelection, ProcessView } from './process-view.ts';

/**
 * A process record as the API shows it (contract section 5): what it is, where it stands
 * (`statusDetail`), what the caller may ask of it now (`resumeTypes`), what it charged and refunded.
 */

/** Every field of a process record, in wire order (`fields` names some of them). */
export const processFields = [
  'id',
  'user',
  'customer',
  'status',
  'statusDetail',
  'resumeTypes',
  'createdDate',
  'updatedDate',
  'startedDate',
  'type',
  'action',
  'identifier',
  'billables',
  'command',
  'refund',
] as const satisfies readonly ProcessField[];

// Every field of the view is listed above (a field added to the view and not here fails to compile).
const listsEveryField: Exclude<ProcessField, (typeof processFields)[number]> extends never ? true : never = true;
void listsEveryField;

export { sslRequiresAttention };

/** Where a process stands beyond its status: a transfer's own status; SSL_REQUIRES_ATTENTION for a certificate request needing it. */
export const statusDetailOf = detailStatusOf;

/** What the caller may ask of a process now (DELETE cancels, POST .../resend resends). */
export function resumeTypesOf(process: ProcessRecord): ResumeType[] {
  if (isTransferProcess(process)) return transferResumeTypes(process, transferDetailsOf(process));
  const state = certificateStateOf(process);
  return state ? certificateResumeTypes(process, state) : [];
}

/** The process record of the API. */
export function processViewOf(process: ProcessRecord): ProcessView {
  const statusDetail = statusDetailOf(process);
  return {
    id: process.id,
    user: `${process.customer}/${process.user}`,
    customer: process.customer,
    status: process.status,
    ...(statusDetail !== undefined ? { statusDetail } : {}),
    resumeTypes: resumeTypesOf(process),
    createdDate: process.createdDate,
    updatedDate: process.updatedDate,
    startedDate: process.createdDate,
    type: process.type,
    action: process.action,
    identifier: process.identifier,
    billables: billablesOf(process),
    ...(process.command !== undefined ? { command: process.command } : {}),
    ...(process.refund !== undefined ? { refund: process.refund } : {}),
  };
}

/** A view with only the named fields (all of them without `fields`). */
export function selectFields(view: ProcessView, fields: readonly ProcessField[] | undefined): ProcessSelection {
  if (fields === undefined) return view;
  return Object.fromEntries(fields.filter((f) => view[f] !== undefined).map((f) => [f, view[f]])) as ProcessSelection;
}

/**
 * The billables as the SDKs read them, each naming its provider: a process recorded before
 * billables carried `providerName` takes it from the process (its registry or certificate authority).
 */
function billablesOf(process: ProcessRecord): ProcessView['billables'] {
  const details = process.details as { registry?: unknown; authority?: unknown } | undefined;
  const provider = [details?.registry, details?.authority].find((p): p is string => typeof p === 'string') ?? process.type;
  return process.billables.map((b) => ({ ...b, providerName: b.providerName ?? provider }));
}

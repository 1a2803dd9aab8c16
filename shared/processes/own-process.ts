import { getProcess } from '../db/repositories/processes.ts';
import { ObjectDoesNotExist, ObjectStatusProhibitsOperation } from '../errors.ts';
import type { ProcessRecord } from '../model/process.ts';

/**
 * What cancel and resend share (the SDKs' resume types): each applies where `resumeTypes` says (a
 * waiting transfer, a certificate request still validating) and answers 400
 * ObjectStatusProhibitsOperation elsewhere; another customer's process answers like a missing one.
 */

/** The caller's process, read strongly consistent (a conditional write follows). */
export async function ownProcess(id: number, customer: string): Promise<ProcessRecord> {
  const process = await getProcess(id, customer, true);
  if (!process) throw new ObjectDoesNotExist('Process', String(id));
  return process;
}

/** The refusal for a process of a type that offers no such operation. */
export function notOffered(process: ProcessRecord, what: string): ObjectStatusProhibitsOperation {
  return new ObjectStatusProhibitsOperation(`Process ${process.id} (${process.type} ${process.action}) cannot ${what}.`);
}

import { getProcess } from '../db/repositories/processes.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { ProcessField, ProcessSelection } from './process-view.ts';
import { processViewOf, selectFields } from './view.ts';

/**
 * One process of the caller (`GET /v2/processes/{processId}`): the record of contract section 5,
 * with `fields` only those fields. Another customer's process answers like a missing one. One GetItem.
 */
export async function getProcessRecord(id: number, customer: string, fields?: readonly ProcessField[]): Promise<ProcessSelection> {
  const process = await getProcess(id, customer);
  if (!process) throw new ObjectDoesNotExist('Process', String(id));
  return selectFields(processViewOf(process), fields);
}

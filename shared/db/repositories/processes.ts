import { ProcessRecord } from '../../model/process.ts';
import { getItem, getItemOf, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { nextId } from './counters.ts';

const entity = 'process';

/** The item a process is stored as (for use inside a caller's transaction). */
export function processItem(record: ProcessRecord): Record<string, unknown> {
  return toItem(keys.process(record.id, record.customer), entity, record);
}

export function putProcess(record: ProcessRecord, ifAbsent = false): Promise<boolean> {
  return putItem(processItem(record), ifAbsent);
}

/** A process of this customer; another customer's process reads as absent (contract section 1). */
export function getProcess(id: number, customer: string): Promise<ProcessRecord | undefined> {
  return getItemOf(customer, keys.processById(id), ProcessRecord, entity);
}

/** A process, whoever holds it: for the jobs and the sandbox, which act for no caller (API callers use getProcess). */
export function getProcessById(id: number): Promise<ProcessRecord | undefined> {
  return getItem(keys.processById(id), ProcessRecord, entity);
}

/** The next process id (atomic; see counters.ts). */
export function allocateProcessId(): Promise<number> {
  return nextId('process');
}

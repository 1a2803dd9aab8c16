import type { ProcessRecord } from './process.ts';
import { detailStatusOf } from './process-detail.ts';

/**
 * What a process listing filters and searches on, and nothing more: the small attributes the
 * table's gsi1list index holds of each process (shared/db/table.ts), with the detail status
 * stored on the item when it is written (it is derived from the process's details, which the
 * index does not hold). A listing checks its filters on summaries and reads whole only the
 * processes of its page.
 */
export interface ProcessSummary {
  id: number;
  status: string;
  type: string;
  action: string;
  identifier: string;
  createdDate: string;
  /** Absent: the process has none. */
  detailStatus?: string;
}

/** The summary of a whole process (what gsi1list holds of it). */
export function processSummaryOf(process: ProcessRecord): ProcessSummary {
  const detailStatus = detailStatusOf(process);
  const { id, status, type, action, identifier, createdDate } = process;
  return { id, status, type, action, identifier, createdDate, ...(detailStatus !== undefined ? { detailStatus } : {}) };
}

/**
 * The detail status as a process item stores it for gsi1list: '' when the process has none (so
 * that an item written before the attribute existed, which lacks it, can be told apart).
 */
export function storedDetailStatusOf(process: ProcessRecord): string {
  return detailStatusOf(process) ?? '';
}

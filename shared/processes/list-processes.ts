import { countProcesses, type ProcessCursor, type ProcessSource, readProcessPage } from '../db/repositories/processes.ts';
import { ValidationError } from '../errors.ts';
import type { ProcessRecord, ProcessStatus } from '../model/process.ts';
import { processStatusOf, type TransferStatus } from '../model/transfer.ts';
import { passesAll } from './filters.ts';
import type { Filter, ProcessQuery } from './list-request.ts';
import type { ProcessPage } from './process-view.ts';
import { processViewOf, selectFields, sslRequiresAttention } from './view.ts';

/**
 * The caller's processes, a page at a time (`GET /v2/processes`): never a Scan, and never another
 * customer's. An exact `identifier` filter reads only that identifier's listing, an exact `status`
 * (or a `detailStatus`, which implies one) only the status index's partition; anything else reads
 * the customer's listing. Newest first by default. The filters no index answers are checked on
 * what the index returns, so a page reads the matches it needs (offset + limit) plus what those
 * filters skip, and no request reads more than maxRead() items.
 */

/** The most items one request reads, its page and its count together: `PROCESS_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.PROCESS_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}
/** The largest Query page a listing asks for while its filters skip items. */
const maxPageItems = 1_000;

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} processes. Narrow it with an exact status or identifier filter (answered from an index), a detailStatus, or a smaller offset.`,
  );

/** The process status a detailStatus implies: a transfer status's own; SSL_REQUIRES_ATTENTION only on running requests. */
function impliedStatus(detail: string): ProcessStatus {
  return detail === sslRequiresAttention ? 'RUNNING' : processStatusOf(detail as TransferStatus);
}

/** The index partition that serves the filters, and the filters left to check on what it returns. */
function planOf(filters: readonly Filter[]): { source: ProcessSource; rest: Filter[] } {
  const without = (f: Filter) => filters.filter((other) => other !== f);
  const identifier = filters.find((f) => f.field === 'identifier' && f.matcher === 'eq');
  if (identifier) return { source: { index: 'identifier', identifier: identifier.values[0] as string }, rest: without(identifier) };
  const status = filters.find((f) => f.field === 'status' && f.matcher === 'eq');
  if (status) return { source: { index: 'status', status: status.values[0] as string }, rest: without(status) };
  const detail = filters.find((f) => f.field === 'detailStatus' && f.matcher === 'eq');
  // The detail is checked again on each process: its status partition holds other processes too.
  if (detail) return { source: { index: 'status', status: impliedStatus(detail.values[0] as string) }, rest: [...filters] };
  return { source: { index: 'all' }, rest: [...filters] };
}

/** Reading state of one request: what it read so far, against maxRead. */
interface Reading {
  customer: string;
  source: ProcessSource;
  ascending: boolean;
  read: number;
  max: number;
}

/**
 * The first `wanted` processes of the source that pass `filters`, in order (all of them when
 * `wanted` is Infinity). Each Query asks for what is still wanted; once filters skipped items, for
 * as many as were read so far (doubling), up to maxPageItems.
 */
async function collect(r: Reading, filters: readonly Filter[], wanted: number): Promise<ProcessRecord[]> {
  const found: ProcessRecord[] = [];
  let start: ProcessCursor | undefined;
  do {
    const missing = wanted - found.length;
    const size = Math.min(maxPageItems, Math.max(Number.isFinite(missing) ? missing : maxPageItems, r.read), r.max + 1 - r.read);
    const page = await readProcessPage(r.customer, r.source, { limit: size, ascending: r.ascending, ...(start ? { start } : {}) });
    r.read += page.read;
    start = page.next;
    for (const process of page.processes) {
      if (found.length < wanted && passesAll(process, filters)) found.push(process);
    }
    if (r.read > r.max && found.length < wanted && start) throw tooBroad(r.max);
  } while (found.length < wanted && start);
  return found;
}

/** Lists the caller's processes (a page, and with `total` the number of matches). */
export async function listProcesses(customer: string, query: ProcessQuery): Promise<ProcessPage> {
  const { source, rest } = planOf(query.filters);
  const reading: Reading = { customer, source, ascending: query.ascending, read: 0, max: maxRead() };
  const end = query.offset + query.limit;
  // With filters to check, counting means reading every match; without, the index counts.
  const readAll = query.total && rest.length > 0;
  const matches = await collect(reading, rest, readAll ? Number.POSITIVE_INFINITY : end);
  let total: number | undefined;
  if (readAll) total = matches.length;
  else if (query.total) {
    const counted = await countProcesses(customer, source, reading.max - reading.read);
    if (!counted.complete) throw tooBroad(reading.max);
    total = counted.count;
  }
  return {
    entities: matches.slice(query.offset, end).map((p) => selectFields(processViewOf(p), query.fields)),
    pagination: { limit: query.limit, offset: query.offset, ...(total !== undefined ? { total } : {}) },
  };
}

import type { StatusBlocks } from '../db/repositories/process-blocks.ts';
import { readProcessCounts } from '../db/repositories/process-counts.ts';
import {
  countProcesses,
  type ProcessSource,
  readProcessesById,
  readProcessPage,
  readProcessSummaries,
  seekStatusType,
  skipProcesses,
  statusBlocksOf,
} from '../db/repositories/processes.ts';
import { ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listPage, type Summaries } from '../listing/page.ts';
import type { ProcessRecord, ProcessStatus } from '../model/process.ts';
import { type ProcessSummary, processSummaryOf } from '../model/process-summary.ts';
import { processStatusOf, type TransferStatus } from '../model/transfer.ts';
import type { FilterField, ProcessFilter, ProcessQuery } from './list-request.ts';
import { processListSpec } from './list-request.ts';
import type { ProcessPage } from './process-view.ts';
import { processViewOf, selectFields, sslRequiresAttention } from './view.ts';

/**
 * The caller's processes (`GET /v2/processes`), through the generic listing (shared/listing/):
 * never a Scan, and never another customer's. An exact `identifier` filter reads only that
 * identifier's listing, an exact `status` (or a `detailStatus`, which implies one) only the status
 * index's partition, an exact `type` or `action` alone only its listing (keys.processType). Anything else checks its filters and search on the customer's process
 * summaries (gsi1list: status, type, action, identifier, createdDate and the stored detail status,
 * about 250 bytes an entry) and reads whole only the processes of its page; an exact identifier
 * with further filters checks them on that identifier's processes, read whole. `total` comes from the counts kept with every process write
 * (shared/db/repositories/process-counts.ts) for no filter and for one filter on status, type,
 * action or detailStatus (eq, in, ne, null, not_null); an exact identifier is counted on its own
 * listing (that identifier's processes only); anything else is counted by reading the summaries,
 * at most maxRead() entries.
 */

/** The most items one request reads, its page and its count together: `PROCESS_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.PROCESS_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}

/**
 * How long a listing may read to find matches no index answers (`q`, `like`, date ranges, filters
 * on summaries): `PROCESS_LIST_READ_MS`, default 5000, half the function's 10 s budget, so that
 * the page, the records read whole and the answer still fit in it on a loaded table.
 */
export function readFor(): number {
  const value = Number(process.env.PROCESS_LIST_READ_MS ?? 5_000);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

const tooSlow = () =>
  new ValidationError(
    'This listing reads more processes than one request has time for. Narrow it with an exact status, type, action or identifier filter (answered from an index), a narrower createdDate range, a longer search term, or a smaller offset; or leave the count out with total=false.',
  );

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} processes. Narrow it with an exact status or identifier filter (answered from an index), a detailStatus, or a smaller offset; or leave the count out with total=false.`,
  );
const tooLarge = (max: number) =>
  new ValidationError(
    `This export holds more than ${max} processes. Narrow it with filters (an exact status, type or action, or a createdDate range) and export each part.`,
  );

/** The process status a detailStatus implies: a transfer status's own; SSL_REQUIRES_ATTENTION only on running requests. */
function impliedStatus(detail: string): ProcessStatus {
  return detail === sslRequiresAttention ? 'RUNNING' : processStatusOf(detail as TransferStatus);
}

/**
 * The index partition that serves the filters, and the filters left to check on what it returns.
 * An exact type or action alone (no other filter, no search) reads its own listing; with more,
 * the filters are checked on the customer's summaries, as any others.
 */
function sourceOf(filters: readonly ProcessFilter[], search?: string): { source: ProcessSource; rest: ProcessFilter[] } {
  const without = (f: ProcessFilter) => filters.filter((other) => other !== f);
  const identifier = filters.find((f) => f.field === 'identifier' && f.matcher === 'eq');
  if (identifier) return { source: { index: 'identifier', identifier: identifier.values[0] as string }, rest: without(identifier) };
  const status = filters.find((f) => f.field === 'status' && f.matcher === 'eq');
  if (status) return { source: { index: 'status', status: status.values[0] as string }, rest: without(status) };
  const [only, ...more] = filters;
  if (only && more.length === 0 && search === undefined && only.matcher === 'eq' && (only.field === 'type' || only.field === 'action')) {
    const value = only.values[0] as string;
    return { source: only.field === 'type' ? { index: 'type', type: value } : { index: 'action', action: value }, rest: [] };
  }
  const detail = filters.find((f) => f.field === 'detailStatus' && f.matcher === 'eq');
  // The detail is checked again on each process: its status partition holds other processes too.
  if (detail) return { source: { index: 'status', status: impliedStatus(detail.values[0] as string) }, rest: [...filters] };
  return { source: { index: 'all' }, rest: [...filters] };
}

/** The dimension of the kept counts a filter field is counted in. */
const countedFields: Partial<Record<FilterField, string>> = { status: 'status', type: 'type', action: 'action', detailStatus: 'detail' };

/** The number of matches of at most one filter, from the kept counts; undefined when they do not answer it. */
function fromCounts(filters: readonly ProcessFilter[], counts: Map<string, number>): number | undefined {
  const all = counts.get('all') ?? 0;
  const [filter, ...more] = filters;
  if (filter === undefined) return all;
  const dimension = countedFields[filter.field];
  if (more.length > 0 || dimension === undefined) return undefined;
  const of = (value: string) => counts.get(`${dimension}:${value}`) ?? 0;
  const every = [...counts].filter(([name]) => name.startsWith(`${dimension}:`)).reduce((n, [, c]) => n + c, 0);
  switch (filter.matcher) {
    case 'eq':
      return of(filter.values[0] as string);
    case 'in':
      return [...new Set(filter.values)].reduce((n, value) => n + of(value), 0);
    case 'not_in':
      return all - [...new Set(filter.values)].reduce((n, value) => n + of(value), 0);
    case 'ne':
      return all - of(filter.values[0] as string);
    case 'null':
      return all - every;
    case 'not_null':
      return every;
    default:
      return undefined;
  }
}

/**
 * The process summaries of a source (the customer's, gsi1list; one status's, gsi2list), in id
 * order: what a listing with filters no index answers checks them on; the page's processes are
 * then read whole, in one BatchGet.
 */
function summariesOf(
  customer: string,
  source: Extract<ProcessSource, { index: 'all' | 'status' }>,
  blocks?: () => Promise<StatusBlocks | undefined>,
): Summaries<ProcessSummary, ProcessRecord> {
  return {
    // An exact status with an exact type: a deep offset starts where the status listing's blocks place it.
    ...(source.index === 'status' && blocks !== undefined
      ? { seek: async (offset: number, ascending: boolean) => seekStatusType(customer, source.status, await blocks(), offset, ascending) }
      : {}),
    readPage: async (options) => {
      const page = await readProcessSummaries(customer, source, options);
      return { records: page.summaries, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    fetch: (summaries) =>
      readProcessesById(
        customer,
        summaries.map((s) => s.id),
      ),
  };
}

/**
 * The filters checked on what the listing reads: with an index partition that answers one of
 * them (an exact identifier or status), the others; over the summaries, all of them.
 */
function filtersLeft(filters: readonly ProcessFilter[], search: string | undefined): ProcessFilter[] {
  const { source, rest } = sourceOf(filters, search);
  const exact = rest.length === 0 && search === undefined;
  return exact || source.index === 'identifier' ? rest : [...filters];
}

/** The listing's plan: its source, whether it is exact, its count where one is kept, and its summaries where it has filters left. */
function planOf(customer: string, query: ProcessQuery): ListingPlan<ProcessRecord, ProcessSummary> {
  const { source, rest } = sourceOf(query.filters, query.search);
  const reader: ListingSource<ProcessRecord> = {
    readPage: async (options) => {
      const page = await readProcessPage(customer, source, options);
      return { records: page.processes, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: (count, ascending, until) => skipProcesses(customer, source, count, ascending, until),
  };
  const exact = rest.length === 0 && query.search === undefined;
  if (!exact && (source.index === 'all' || source.index === 'status')) {
    // Filters no index answers: checked on the summaries of the source's partition (every
    // process of the customer's, or one status's where an exact status or detailStatus names it).
    // An export reads the source's processes whole (it answers them all), checking every filter.
    // An exact status with an exact type: counted and placed by the status listing's blocks of the type, read once.
    const type = source.index === 'status' ? typeWithStatus(rest, query.search) : undefined;
    let read: Promise<StatusBlocks | undefined> | undefined;
    const blocks =
      source.index === 'status' && type !== undefined
        ? () => {
            read ??= statusBlocksOf(customer, source.status, type);
            return read;
          }
        : undefined;
    const count =
      query.search === undefined
        ? (countOf(customer, query.filters) ?? (blocks ? async () => (await blocks())?.total : undefined))
        : undefined;
    return { source: reader, exact, summaries: summariesOf(customer, source, blocks), ...(count ? { count } : {}) };
  }
  if (query.search !== undefined) return { source: reader, exact };
  if (source.index === 'identifier' && exact) {
    // One identifier's processes: counted on its own listing, whatever the size of the account.
    return {
      source: reader,
      exact,
      count: async () => {
        const counted = await countProcesses(customer, source, maxRead());
        if (!counted.complete) throw tooBroad(maxRead());
        return counted.count;
      },
    };
  }
  const count = countOf(customer, query.filters);
  return { source: reader, exact, ...(count ? { count } : {}) };
}

/** The type of an exact status listing with an exact type and nothing else (its blocks count and place its matches). */
function typeWithStatus(rest: readonly ProcessFilter[], search: string | undefined): string | undefined {
  const [only, ...more] = rest;
  return only && more.length === 0 && search === undefined && only.field === 'type' && only.matcher === 'eq'
    ? (only.values[0] as string)
    : undefined;
}

/** The count of the matches of the filters from the kept counts, where they answer them (at most one filter). */
function countOf(customer: string, filters: readonly ProcessFilter[]): (() => Promise<number>) | undefined {
  if (filters.length > 1 || (filters.length === 1 && fromCounts(filters, new Map()) === undefined)) return undefined;
  return async () => fromCounts(filters, (await readProcessCounts(customer)).counts) as number;
}

/** Lists the caller's processes (a page, and by default the number of matches). */
export function listProcesses(customer: string, query: ProcessQuery): Promise<ProcessPage> {
  return listPage(planOf(customer, query), query, {
    matches: matcherOf(
      processListSpec,
      (s: ProcessSummary, field: FilterField) => s[field],
      filtersLeft(query.filters, query.search),
      query.search,
    ),
    summaryOf: processSummaryOf,
    view: (p: ProcessRecord) => selectFields(processViewOf(p), query.fields),
    maxRead: maxRead(),
    maxExport: maxRead(),
    tooBroad,
    tooLarge,
    readFor: readFor(),
    tooSlow,
  });
}

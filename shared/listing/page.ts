import type { ListQuery } from './query.ts';

/**
 * How a listing answers a ListQuery (query.ts) at a cost that does not grow with the account:
 *
 * - `total` comes from counts kept with every write (`ListingPlan.count`) when they answer the
 *   filters; otherwise the matches are counted by reading them, at most `maxRead` items, and past
 *   that the request is refused (`tooBroad`) with a message saying how to narrow it.
 * - When the source answers every filter itself (an index partition holding exactly the matches),
 *   a page skips `offset` entries over keys only (`ListingSource.skip`, a keys-only index) and then
 *   reads `limit` full items. With filters left to check, they are checked on summaries where the
 *   plan has them (`ListingPlan.summaries`: an index holding only what the filters read), read in
 *   order until the page is full (or all of them, to count), at most `maxRead` entries in all;
 *   then only the page's records are read whole (`Summaries.fetch`, at most `limit`). Without
 *   summaries the records themselves are read in order, at most `maxRead`. Either way, reading for
 *   matches (and for an export, and skipping a deep offset where the source can stop) stops after
 *   `readFor` ms, and the request is refused (`tooSlow`) with a message saying how to narrow it,
 *   well before the function's time is up (a 400, never a 503).
 * - `limit=0` reads nothing but the count; `export=true` reads every record, at most `maxExport`
 *   (past that `tooLarge`; past `readFor`, `tooSlow`), and answers the matches (it answers them whole: the records are read).
 *
 * A listing (shared/processes/list-processes.ts) gives its plan: the source, whether it is exact,
 * the count where its counts answer, and summaries where an index holds what its filters read;
 * the check of the filters left (on a summary: `summaryOf` makes one of a record); and the view
 * of a record.
 */

/**
 * How long a listing may read before it is refused with a 400 saying how to narrow it
 * (`ListingRules.readFor`): `LISTING_READ_MS`, default 5000, half the function's 10 s budget, so
 * that the page, the records read whole and the answer still fit in it on a loaded table.
 */
export function listingReadMs(): number {
  const value = Number(process.env.LISTING_READ_MS ?? 5_000);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

/** Where a listing stopped reading, to go on from (opaque: the table's key). */
export type Cursor = Record<string, unknown>;

/** Things in the listing's order, read a page at a time. */
export interface PageReader<T> {
  /** Up to `limit` things from `start`, with the items (or index entries) read and where to go on (absent at the end). */
  readPage(options: { limit: number; ascending: boolean; start?: Cursor }): Promise<{ records: T[]; read: number; next?: Cursor }>;
}

/** Records in the listing's order, read a page at a time. */
export interface ListingSource<R> extends PageReader<R> {
  /**
   * Skips `count` entries reading keys only: where the page after them starts (undefined: nothing
   * is left). A source given `until` (epoch ms) may stop at that time and answer false: the
   * listing is then refused (`tooSlow`) rather than cut off by the function's budget.
   */
  skip(count: number, ascending: boolean, until?: number): Promise<Cursor | undefined | false>;
}

/**
 * The summaries of the source's records, in the same order, from an index that holds only what
 * the filters and the search read (shared/db/table.ts, gsi1list): the filters are checked on
 * them, and `fetch` reads whole only the records that make the page.
 */
export interface Summaries<S, R> extends PageReader<S> {
  /** The records of these summaries, in their order (one gone meanwhile is left out). */
  fetch(summaries: readonly S[]): Promise<R[]>;
  /**
   * Where to start reading for the match at `offset` (in the listing's order) without reading the
   * matches before it, where kept counts tell (the process status listing's blocks): the key to go
   * on from and how many matches come before it; 'none' past the last match; undefined when they
   * do not tell (the listing reads from the start).
   */
  seek?(offset: number, ascending: boolean): Promise<{ start?: Cursor; before: number } | 'none' | undefined>;
}

/** How a listing serves one query's filters. */
export interface ListingPlan<R, S = R> {
  source: ListingSource<R>;
  /** True when the source holds exactly the matches (no filter or search left to check on records). */
  exact: boolean;
  /** The number of matches from kept counts, where they answer the filters (undefined: they turned out not to; counted by reading). */
  count?: () => Promise<number | undefined>;
  /** Where the filters left are checked on summaries rather than on records read whole. */
  summaries?: Summaries<S, R>;
}

export interface ListingRules<R, V, S = R> {
  /** Whether a summary passes the filters and search the source does not answer. */
  matches: (summary: S) => boolean;
  /** The summary of a record (what `matches` reads), for a listing that reads the records themselves. */
  summaryOf: (record: R) => S;
  view: (record: R) => V;
  /** The most items one request reads (its page and its count together). */
  maxRead: number;
  /** The most records an export answers. */
  maxExport: number;
  /**
   * The most records an export asks one Query for (default maxPageItems): where records are small,
   * DynamoDB's 1 MB a page bounds a page before this does, and an export of the whole source takes
   * that many fewer calls.
   */
  exportPage?: number;
  /** The refusal of a listing that would read more than `max` items. */
  tooBroad: (max: number) => Error;
  /** The refusal of an export of more than `max` records. */
  tooLarge: (max: number) => Error;
  /**
   * How long (ms) a request may read to find its matches (filters and searches no index answers),
   * so that a listing on a slow or loaded table is refused (`tooSlow`) before the function's time
   * runs out, rather than cut off by it. Without it, only `maxRead` bounds the reading.
   */
  readFor?: number;
  /** The refusal of a listing whose matches took longer than `readFor` to find. */
  tooSlow?: () => Error;
}

/** A page as the API answers it (the SDKs' Page and Pagination). */
export interface ListingPage<V> {
  entities: V[];
  pagination: { limit: number; offset: number; total?: number };
}

/** The largest Query page a listing asks for while its filters skip items. */
const maxPageItems = 1_000;
/** The same for summaries: index entries of about 250 bytes, about 1 MB (DynamoDB's most a Query answers). */
const maxPageEntries = 5_000;

/**
 * The first `wanted` records of the source that pass `matches`, in order (all of them when
 * `wanted` is Infinity), reading at most `max` items (else `refuse`). Each Query asks for what is
 * still wanted; once records were skipped, for as many as were read so far (doubling), up to
 * `maxPage` (maxPageItems, or maxPageEntries for summaries).
 */
async function collect<R>(
  source: PageReader<R>,
  ascending: boolean,
  matches: (record: R) => boolean,
  wanted: number,
  max: number,
  refuse: () => Error,
  maxPage = maxPageItems,
  time?: { until: number; refuse: () => Error },
  from?: Cursor,
): Promise<R[]> {
  const found: R[] = [];
  let read = 0;
  let start: Cursor | undefined = from;
  do {
    const missing = wanted - found.length;
    const size = Math.min(maxPage, Math.max(Number.isFinite(missing) ? missing : maxPage, read), max + 1 - read);
    const page = await source.readPage({ limit: size, ascending, ...(start ? { start } : {}) });
    read += page.read;
    start = page.next;
    for (const record of page.records) {
      if (found.length < wanted && matches(record)) found.push(record);
    }
    if (read > max && found.length < wanted && start) throw refuse();
    if (time && Date.now() >= time.until && found.length < wanted && start) throw time.refuse();
  } while (found.length < wanted && start);
  return found;
}

/** Answers a listing query with a plan (see above). */
export async function listPage<R, V, F extends string, Field extends string, S = R>(
  plan: ListingPlan<R, S>,
  query: ListQuery<F, Field>,
  rules: ListingRules<R, V, S>,
): Promise<ListingPage<V>> {
  const ascending = query.order[0]?.ascending ?? false;
  const tooBroad = () => rules.tooBroad(rules.maxRead);
  const { readFor, tooSlow } = rules;
  const time = readFor !== undefined && tooSlow ? { until: Date.now() + readFor, refuse: tooSlow } : undefined;
  const recordMatches = (record: R) => rules.matches(rules.summaryOf(record));
  if (query.export) {
    // Bounded in time too (`readFor`): an export that cannot finish in time is refused, never cut off.
    const all = await collect(
      plan.source,
      ascending,
      recordMatches,
      Number.POSITIVE_INFINITY,
      rules.maxExport,
      () => rules.tooLarge(rules.maxExport),
      rules.exportPage ?? maxPageItems,
      time,
    );
    return {
      entities: all.map(rules.view),
      pagination: { limit: all.length, offset: 0, ...(query.total ? { total: all.length } : {}) },
    };
  }
  const counted = query.total && plan.count ? await plan.count() : undefined;
  const countByReading = query.total && counted === undefined;
  const end = query.offset + query.limit;
  let records: R[] = [];
  let total = counted;
  if (counted !== undefined && query.offset >= counted) {
    // Past the last match by the kept count: nothing to skip or read.
  } else if (plan.exact && !countByReading) {
    if (query.limit > 0) {
      const start = query.offset > 0 ? await plan.source.skip(query.offset, ascending, time?.until) : undefined;
      if (start === false) throw (time as { refuse: () => Error }).refuse();
      if (query.offset === 0 || start !== undefined) {
        records = (await plan.source.readPage({ limit: query.limit, ascending, ...(start ? { start } : {}) })).records;
      }
    }
  } else if ((query.limit > 0 || countByReading) && plan.summaries) {
    // The filters on summaries; whole records only for the page. A deep offset starts where the
    // plan's kept counts place it (`seek`), reading only from there.
    const seek = !countByReading && query.limit > 0 && query.offset > 0 ? await plan.summaries.seek?.(query.offset, ascending) : undefined;
    if (seek !== 'none') {
      const before = seek?.before ?? 0;
      const wanted = countByReading ? Number.POSITIVE_INFINITY : end - before;
      const matches = await collect(
        plan.summaries,
        ascending,
        rules.matches,
        wanted,
        rules.maxRead,
        tooBroad,
        maxPageEntries,
        time,
        seek?.start,
      );
      const page = matches.slice(query.offset - before, end - before);
      records = page.length > 0 ? await plan.summaries.fetch(page) : [];
      if (countByReading) total = matches.length;
    }
  } else if (query.limit > 0 || countByReading) {
    const wanted = countByReading ? Number.POSITIVE_INFINITY : end;
    const matches = await collect(plan.source, ascending, recordMatches, wanted, rules.maxRead, tooBroad, maxPageItems, time);
    records = matches.slice(query.offset, end);
    if (countByReading) total = matches.length;
  }
  return {
    entities: records.map(rules.view),
    pagination: { limit: query.limit, offset: query.offset, ...(query.total && total !== undefined ? { total } : {}) },
  };
}

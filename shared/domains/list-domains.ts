import {
  countDomains,
  countExpiringOnDays,
  type DomainSource,
  type KeyReadBound,
  readDomainCounts,
  readDomainPage,
  skipDomains,
} from '../db/repositories/domains.ts';
import { ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listPage } from '../listing/page.ts';
import type { DomainRecord } from '../model/domain.ts';
import type { DomainPage } from './domain-view.ts';
import type { DomainFilter, DomainFilterField, DomainQuery } from './list-request.ts';
import { domainListSpec } from './list-request.ts';
import { domainViewOf, selectFields } from './view.ts';

/**
 * The caller's domains (`GET /v2/domains`), through the generic listing (shared/listing/): never a
 * Scan, and never another customer's. Ordered by expiry (`order=expiryDate`, or an expiryDate
 * range without `order`), the listing reads the expiry index (gsi2) over exactly the range its
 * expiryDate filters give; with an exact `status`, that status's listing; otherwise the domains by
 * name (gsi1). Filters the source does not answer are checked on the domains it returns, reading at
 * most maxRead() of them. `total` of a source that answers every filter comes from the counts kept
 * with every write of a domain (all, and per status), or for an expiry range from the per-day
 * counts kept the same way (with the keys of a day it covers only in part counted over gsi2keys);
 * otherwise by reading.
 */

/** The most domains one request reads, its page and its count together: `DOMAIN_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.DOMAIN_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} domains. Narrow it with an expiryDate range or an exact status (answered from an index), or leave the count out with total=false.`,
  );
/**
 * How long a listing may read to find, count or skip past its matches: `DOMAIN_LIST_READ_MS`,
 * default 5000, half the function's 10 s budget (as for processes and contacts), so that a range
 * too wide for one request is refused with a 400 saying how to narrow it, never cut off by a 503.
 */
export function readFor(): number {
  const value = Number(process.env.DOMAIN_LIST_READ_MS ?? 5_000);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

const tooSlow = () =>
  new ValidationError(
    'This listing reads more domains than one request has time for. Narrow it with a shorter expiryDate range or an exact status (answered from an index), or a smaller offset; or leave the count out with total=false.',
  );
const tooLarge = (max: number) =>
  new ValidationError(
    `This export holds more than ${max} domains. Narrow it with filters (an expiryDate range, a status) and export each part.`,
  );

/** `~` sorts after every character of an expiry key past the date: `X~` is above every key starting with X. */
const above = (value: string) => `${value}~`;

/**
 * The inclusive key range the expiryDate filters give, and the filters left: `gte X` from X,
 * `gt X` from X~, `lte X` to X~, `lt X` to X (a key starting with X is longer, so above it),
 * `eq X` both; `ne` is left to check.
 */
function expiryRange(filters: readonly DomainFilter[]): { from?: string; to?: string; rest: DomainFilter[] } {
  let from: string | undefined;
  let to: string | undefined;
  const rest: DomainFilter[] = [];
  const raise = (bound: string) => {
    from = from === undefined || bound > from ? bound : from;
  };
  const lower = (bound: string) => {
    to = to === undefined || bound < to ? bound : to;
  };
  for (const f of filters) {
    const value = f.values[0] as string;
    if (f.field !== 'expiryDate' || f.matcher === 'ne') rest.push(f);
    else if (f.matcher === 'gte') raise(value);
    else if (f.matcher === 'gt') raise(above(value));
    else if (f.matcher === 'lte') lower(above(value));
    else if (f.matcher === 'lt') lower(value);
    else {
      raise(value);
      lower(above(value));
    }
  }
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), rest };
}

/** The index partition that serves the query, and the filters left to check on what it returns. */
function sourceOf(query: DomainQuery): { source: DomainSource; rest: DomainFilter[]; ascending: boolean } {
  const order = query.order[0] ?? { key: 'domainName', ascending: true };
  const ranged = query.filters.some((f) => f.field === 'expiryDate' && f.matcher !== 'ne');
  if (order.key === 'expiryDate' || (ranged && !query.ordered)) {
    const { rest, ...range } = expiryRange(query.filters);
    return { source: { index: 'expiry', ...range }, rest, ascending: order.key === 'expiryDate' ? order.ascending : true };
  }
  const status = query.filters.find((f) => f.field === 'status' && f.matcher === 'eq');
  if (status) {
    return {
      source: { index: 'status', status: status.values[0] as string },
      rest: query.filters.filter((f) => f !== status),
      ascending: order.ascending,
    };
  }
  return { source: { index: 'name' }, rest: [...query.filters], ascending: order.ascending };
}

/** A domain's value of a single-valued filter field, as the filters compare it (months zero-padded). */
function fieldValue(d: DomainRecord, field: DomainFilterField): string | undefined {
  switch (field) {
    case 'domainName':
      return d.domainName;
    case 'registrant':
      return d.registrant;
    case 'admin':
    case 'billing':
    case 'tech':
      return d.contacts.find((c) => c.role === field.toUpperCase())?.handle;
    case 'privacyProtect':
      return String(d.privacyProtect);
    case 'autoRenew':
      return String(d.autoRenew);
    case 'autoRenewPeriod':
      return String(d.autoRenewPeriod).padStart(4, '0');
    case 'expiryDate':
      return d.expiryDate;
    case 'createdDate':
      return d.createdDate;
    case 'status':
      return undefined;
  }
}

/**
 * Whether a domain's statuses pass a status filter: `eq` has it, `ne` has it not, `in` has one of
 * them, `not_in` has none of them.
 */
function statusPasses(d: DomainRecord, f: DomainFilter): boolean {
  if (f.matcher === 'ne') return !d.status.includes(f.values[0] as string);
  if (f.matcher === 'not_in') return !f.values.some((value) => d.status.includes(value));
  return f.values.some((value) => d.status.includes(value));
}

/** The check of the filters left and the search on one domain. */
function matcher(filters: readonly DomainFilter[], search: string | undefined): (d: DomainRecord) => boolean {
  const padded = filters.map((f) => (f.field === 'autoRenewPeriod' ? { ...f, values: f.values.map((x) => x.padStart(4, '0')) } : f));
  const statuses = padded.filter((f) => f.field === 'status');
  const others = matcherOf(
    domainListSpec,
    fieldValue,
    padded.filter((f) => f.field !== 'status'),
    search,
  );
  return (d) => statuses.every((f) => statusPasses(d, f)) && others(d);
}

/**
 * How an expiry range's keys (`<expiryDate>#<name>`, `from` and `to` inclusive, either open) fall
 * on days, in the terms of the day counters' sort keys (`<day>#<shard>`): the inclusive bounds of
 * the counters of the days it covers whole, and the parts of the days it covers only in part (at
 * most one at each end), to count over keys. A day D is whole when every key starting with D is in
 * the range: `from` <= D and `to` >= D~ (`~` sorts after every character of a key). Only string
 * comparisons: no calendar arithmetic, so a day that is no date (2027-02-30) holds nothing.
 */
export function expiryDays(from?: string, to?: string): { lower?: string; upper?: string; parts: { from: string; to: string }[] } {
  const parts: { from: string; to: string }[] = [];
  let lower: string | undefined;
  let upper: string | undefined;
  if (from !== undefined) {
    const day = from.slice(0, 10);
    lower = from <= day ? day : `${day}~`;
    // Part of its day: from `from` to the day's end (or to `to`, within it).
    if (from > day && from < `${day}~`) parts.push({ from, to: to !== undefined && to < `${day}~` ? to : `${day}~` });
  }
  if (to !== undefined) {
    const day = to.slice(0, 10);
    // Past the day's keys: the day whole; `to` the day itself: none of it (every key of it is longer, so above it).
    upper = to >= `${day}~` ? `${day}~` : day;
    const sameDay = from !== undefined && from.slice(0, 10) === day && from > day;
    if (to > day && to < `${day}~` && !sameDay) parts.push({ from: from !== undefined && from > day ? from : day, to });
  }
  return { ...(lower !== undefined ? { lower } : {}), ...(upper !== undefined ? { upper } : {}), parts };
}

/**
 * The number of domains a source holds: every domain's or one status's from the counts kept with
 * every write of a domain (one GetItem); an expiry range's from the per-day counts kept the same
 * way (one Query of its whole days' counters), with the keys of a day it covers only in part (at
 * most one at each end) counted over gsi2keys, bounded.
 */
async function countOf(customer: string, source: DomainSource, bound: KeyReadBound): Promise<number> {
  if (source.index === 'expiry') {
    if (source.from !== undefined && source.to !== undefined && source.from > source.to) return 0;
    // The whole index (an order by expiry, no range): every domain.
    if (source.from === undefined && source.to === undefined) return (await readDomainCounts(customer))();
    const days = expiryDays(source.from, source.to);
    const empty = days.lower !== undefined && days.upper !== undefined && days.lower > days.upper;
    const whole = empty ? 0 : (await countExpiringOnDays(customer, days.lower, days.upper)).count;
    const parts = await Promise.all(days.parts.map((part) => countDomains(customer, { index: 'expiry', ...part }, bound)));
    return parts.reduce((n, c) => n + c, whole);
  }
  const counts = await readDomainCounts(customer);
  return source.index === 'status' ? counts(source.status) : counts();
}

/** Lists the caller's domains (a page, and by default the number of matches). */
export function listDomains(customer: string, query: DomainQuery): Promise<DomainPage> {
  const { source, rest, ascending } = sourceOf(query);
  const exact = rest.length === 0 && query.search === undefined;
  const max = maxRead();
  const bound: KeyReadBound = { max, until: Date.now() + readFor(), refuse: (why) => (why === 'broad' ? tooBroad(max) : tooSlow()) };
  // An expiry range that ends before it starts holds nothing (DynamoDB refuses such a BETWEEN).
  const none = source.index === 'expiry' && source.from !== undefined && source.to !== undefined && source.from > source.to;
  const reader: ListingSource<DomainRecord> = {
    readPage: async (options) => {
      if (none) return { records: [], read: 0 };
      const page = await readDomainPage(customer, source, { ...options, ascending });
      return { records: page.domains, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: async (count) => (none ? undefined : skipDomains(customer, source, count, ascending, bound)),
  };
  const plan: ListingPlan<DomainRecord> = { source: reader, exact, ...(exact ? { count: () => countOf(customer, source, bound) } : {}) };
  return listPage(plan, query, {
    matches: matcher(rest, query.search),
    summaryOf: (d) => d,
    view: (d: DomainRecord) => selectFields(domainViewOf(d), query.fields),
    maxRead: max,
    maxExport: max,
    tooBroad,
    tooLarge,
    readFor: Math.max(0, bound.until - Date.now()),
    tooSlow,
  });
}

import {
  type ContactSource,
  countContacts,
  type ListedField,
  listedFields,
  readContact,
  readContactCount,
  readContactPage,
  skipContacts,
} from '../db/repositories/contacts.ts';
import { ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listPage } from '../listing/page.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { ContactPage } from './contact-view.ts';
import { type ContactFilter, type ContactQuery, contactListSpec, type FilterField } from './list-request.ts';
import { maxContacts, ownAddressBook } from './own.ts';
import { contactViewOf, selectFields } from './view.ts';

/**
 * The caller's contacts (`GET /v2/customers/{customer}/contacts`), through the generic listing
 * (shared/listing/): never a Scan, never another customer's. The source answers what it can, the
 * rest is checked on the contacts it returns:
 * - an exact `handle` reads that one contact;
 * - an exact `email`, `name`, `organization` or `country`, or `organization:null`, reads the
 *   listing of that value (one small entry per contact, written with every write of the contact),
 *   then only the page's contacts (BatchGet);
 * - a `createdDate` range (without `order`, or with `order=createdDate`) reads only that range of
 *   the listing by creation date (gsi1), of all contacts or of the value above;
 * - otherwise every contact in the order asked (gsi2 by handle, gsi1 by creation date).
 * `total` of a source that answers every filter is the kept count (no filter) or counted over its
 * keys; otherwise by reading. Reading for matches stops at maxRead() contacts and after readFor()
 * ms, with a 400 saying how to narrow the listing, well inside the function's time.
 */

/** The most contacts one request reads: `CONTACT_LIST_MAX_READ`, default the address book's limit. */
export function maxRead(): number {
  const value = Number(process.env.CONTACT_LIST_MAX_READ ?? maxContacts());
  return Number.isInteger(value) && value > 0 ? value : maxContacts();
}

/**
 * How long a listing may read to find matches its source does not answer (`q`, `like`, `ne`,
 * filters on other fields) or to export: `CONTACT_LIST_READ_MS`, default 5000, half the
 * function's 10 s budget, as for processes.
 */
export function readFor(): number {
  const value = Number(process.env.CONTACT_LIST_READ_MS ?? 5_000);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

const narrowing =
  'Narrow it with an exact handle, email, name, organization or country, organization:null or a createdDate range (answered from an index), or a smaller offset; or leave the count out with total=false.';

const tooBroad = (max: number) => new ValidationError(`This listing would read more than ${max} contacts. ${narrowing}`);
const tooSlow = () => new ValidationError(`This listing reads more contacts than one request has time for. ${narrowing}`);
const tooLarge = (max: number) =>
  new ValidationError(
    `This export holds more than ${max} contacts, or more than one request has time to read. Narrow it with an exact email, name, organization or country, or a createdDate range, and export each part.`,
  );

/** The value of a filter field of a contact (an address's lines joined, so a filter finds any of them). */
function fieldValue(c: ContactRecord, field: FilterField): string | undefined {
  const value = c[field];
  if (Array.isArray(value)) return value.join('\n');
  return value === undefined ? undefined : String(value);
}

/** One contact, by handle: the source of an exact `handle` filter (a page of it or none). */
function oneContact(customer: string, handle: string): ListingSource<ContactRecord> & { count: () => Promise<number> } {
  const read = async () => (await readContact(customer, handle))?.contact;
  return {
    readPage: async () => {
      const c = await read();
      return { records: c ? [c] : [], read: 1 };
    },
    skip: async () => undefined,
    count: async () => ((await read()) ? 1 : 0),
  };
}

/** `~` sorts after every character of a creation key past the date: `X~` is above every key starting with X. */
const above = (value: string) => `${value}~`;

/** The inclusive creation-date key range of the createdDate filters (`ne`, `null`, `not_null` are left to check), and the filters left. */
function createdRange(filters: readonly ContactFilter[]): { from?: string; to?: string; rest: ContactFilter[] } {
  let from: string | undefined;
  let to: string | undefined;
  const rest: ContactFilter[] = [];
  const raise = (bound: string) => {
    from = from === undefined || bound > from ? bound : from;
  };
  const lower = (bound: string) => {
    to = to === undefined || bound < to ? bound : to;
  };
  for (const f of filters) {
    const value = f.values[0] as string;
    if (f.field !== 'createdDate' || !['eq', 'gt', 'gte', 'lt', 'lte'].includes(f.matcher)) rest.push(f);
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

/** The listed field's exact value a filter names (the most selective first), if any. */
function listedFilter(filters: readonly ContactFilter[]): ContactFilter | undefined {
  for (const field of listedFields) {
    const found = filters.find((f) => f.field === field && (f.matcher === 'eq' || (f.field === 'organization' && f.matcher === 'null')));
    if (found) return found;
  }
  return undefined;
}

/** The source that serves the query, the filters left to check on what it returns, and its direction. */
function sourceOf(query: ContactQuery): { source: ContactSource; rest: ContactFilter[]; ascending: boolean } {
  const order = query.order[0] ?? { key: 'handle', ascending: true };
  const listed = listedFilter(query.filters);
  const others = query.filters.filter((f) => f !== listed);
  const narrowed = listed
    ? { with: { field: listed.field as ListedField, value: listed.matcher === 'null' ? null : (listed.values[0] as string) } }
    : {};
  const ranged = others.some((f) => f.field === 'createdDate' && ['eq', 'gt', 'gte', 'lt', 'lte'].includes(f.matcher));
  if (order.key === 'createdDate' || (ranged && !query.ordered)) {
    const { rest, ...range } = createdRange(others);
    return {
      source: { ...narrowed, order: 'createdDate', ...range },
      rest,
      ascending: order.key === 'createdDate' ? order.ascending : true,
    };
  }
  return { source: { ...narrowed, order: 'handle' }, rest: others, ascending: order.ascending };
}

function planOf(customer: string, query: ContactQuery): { plan: ListingPlan<ContactRecord>; rest: ContactFilter[] } {
  const handle = query.filters.find((f) => f.field === 'handle' && f.matcher === 'eq');
  if (handle) {
    const rest = query.filters.filter((f) => f !== handle);
    const source = oneContact(customer, handle.values[0] as string);
    const exact = rest.length === 0 && query.search === undefined;
    return { plan: { source, exact, ...(exact ? { count: source.count } : {}) }, rest };
  }
  const { source, rest, ascending } = sourceOf(query);
  const whole = source.with === undefined && source.from === undefined && source.to === undefined;
  const reader: ListingSource<ContactRecord> = {
    readPage: async (options) => {
      const page = await readContactPage(customer, source, { ...options, ascending });
      return { records: page.contacts, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    // The whole book's size is its kept count (one GetItem): a deep offset counts from the nearer end.
    skip: async (count, _ascending, until) =>
      skipContacts(customer, source, count, ascending, {
        ...(until !== undefined ? { until } : {}),
        ...(whole ? { total: await readContactCount(customer) } : {}),
      }),
  };
  const exact = rest.length === 0 && query.search === undefined;
  // A filtered source is counted over its keys, within the listing's time (then refused, a 400).
  const count = async () => {
    if (whole) return readContactCount(customer);
    const counted = await countContacts(customer, source, Date.now() + readFor());
    if (counted === undefined) throw tooSlow();
    return counted;
  };
  return { plan: { source: reader, exact, ...(exact ? { count } : {}) }, rest };
}

/** Lists the caller's contacts (a page, and by default the number of matches). */
export async function listContacts(caller: string, customer: string, query: ContactQuery): Promise<ContactPage> {
  ownAddressBook(caller, customer);
  const { plan, rest } = planOf(customer, query);
  const max = maxRead();
  return (await listPage(plan, query, {
    matches: matcherOf(contactListSpec, fieldValue, rest, query.search),
    summaryOf: (c) => c,
    view: (c) => selectFields(contactViewOf(c), query.fields),
    maxRead: max,
    maxExport: max,
    // A contact's item is about 0.5 KB: DynamoDB's 1 MB a page (about 2,000) bounds an export's Query first.
    exportPage: 5_000,
    tooBroad,
    tooLarge,
    readFor: readFor(),
    tooSlow,
  })) as ContactPage;
}

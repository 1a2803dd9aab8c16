import { type ContactOrder, readContact, readContactCount, readContactPage, skipContacts } from '../db/repositories/contacts.ts';
import { ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listingReadMs, listPage } from '../listing/page.ts';
import type { ContactRecord } from '../model/contact.ts';
import type { ContactPage } from './contact-view.ts';
import { type ContactFilter, type ContactQuery, contactListSpec, type FilterField } from './list-request.ts';
import { maxContacts, ownAddressBook } from './own.ts';
import { contactViewOf, selectFields } from './view.ts';

/**
 * The caller's contacts (`GET /v2/customers/{customer}/contacts`), through the generic listing
 * (shared/listing/): never a Scan, never another customer's. By handle (gsi2) or by creation date
 * (gsi1). Without filters or `q`, `total` is the count kept with every create and delete and
 * `offset` is skipped over the keys-only twin of the index; an exact `handle` reads that one
 * contact; any other filter is checked on the contacts read in order, at most maxRead() of them
 * (an address book holds at most maxContacts(), so no filter is ever too broad by default).
 */

/** The most contacts one request reads: `CONTACT_LIST_MAX_READ`, default the address book's limit. */
export function maxRead(): number {
  const value = Number(process.env.CONTACT_LIST_MAX_READ ?? maxContacts());
  return Number.isInteger(value) && value > 0 ? value : maxContacts();
}

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} contacts. Narrow it with an exact handle, or leave the count out with total=false.`,
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

function planOf(customer: string, query: ContactQuery): { plan: ListingPlan<ContactRecord>; rest: ContactFilter[] } {
  const handle = query.filters.find((f) => f.field === 'handle' && f.matcher === 'eq');
  if (handle) {
    const rest = query.filters.filter((f) => f !== handle);
    const source = oneContact(customer, handle.values[0] as string);
    const exact = rest.length === 0 && query.search === undefined;
    return { plan: { source, exact, ...(exact ? { count: source.count } : {}) }, rest };
  }
  const order: ContactOrder = query.order[0]?.key === 'createdDate' ? 'createdDate' : 'handle';
  const source: ListingSource<ContactRecord> = {
    readPage: async (options) => {
      const page = await readContactPage(customer, order, options);
      return { records: page.contacts, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: (count, ascending) => skipContacts(customer, order, count, ascending),
  };
  const exact = query.filters.length === 0 && query.search === undefined;
  return { plan: { source, exact, ...(exact ? { count: () => readContactCount(customer) } : {}) }, rest: [...query.filters] };
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
    tooBroad,
    tooLarge: tooBroad,
    // Reading for matches no index answers stops before the function's budget: a 400, never a 503.
    readFor: listingReadMs(),
    tooSlow: () =>
      new ValidationError(
        'This listing reads more contacts than one request has time for. Narrow it with an exact handle (answered by key), a longer search term, or a smaller offset; or leave the count out with total=false.',
      ),
  })) as ContactPage;
}

import {
  type CertificateSummary,
  countCertificates,
  getCertificateOf,
  readCertificatePage,
  readCertificateSummaries,
  readCertificatesById,
  skipCertificates,
} from '../db/repositories/certificates.ts';
import { ValidationError } from '../errors.ts';
import { passes } from '../listing/filters.ts';
import { type ListingPage, type ListingPlan, type ListingSource, listPage, type Summaries } from '../listing/page.ts';
import type { CertificateProduct, CertificateRecord } from '../model/certificate.ts';
import { certificateViewOf, productOf } from './certificate-info.ts';
import type { CertificateView } from './certificate-view.ts';
import { type CertificateFilter, type CertificateQuery, certificateListSpec, type FilterField } from './list-request.ts';

/**
 * The caller's certificates (`GET /v2/ssl/certificates`), through the generic listing
 * (shared/listing/): never a Scan, never another customer's (every read names the customer's
 * partition of gsi1, or is owner-filtered). In id order, each in the shape of
 * `GET /v2/ssl/certificates/{id}`.
 *
 * - No filter and no `q`: `offset` is skipped over the keys-only index and only the page is read;
 *   `total` counts keys only (gsi1keys), at most maxCount() of them.
 * - An exact `id`: that one certificate (one owner-filtered read).
 * - Filters on `id` and `status` only: checked on the summaries (gsi1list, id and status), the
 *   page's certificates then read whole in one BatchGet.
 * - Anything else (names, product, dates, `q`): checked on the certificates read whole in id
 *   order, at most maxRead() of them and for at most readFor() ms; past either, a 400 saying how
 *   to narrow it.
 */

/** The most items one request reads, its page and its count together: `CERTIFICATE_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.CERTIFICATE_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}

/** The most keys the count of an unfiltered listing reads (keys only, about 100 bytes each): `CERTIFICATE_LIST_MAX_COUNT`, default 100000. */
export function maxCount(): number {
  const value = Number(process.env.CERTIFICATE_LIST_MAX_COUNT ?? 100_000);
  return Number.isInteger(value) && value > 0 ? value : 100_000;
}

/**
 * How long a listing may read to find matches no index answers: `CERTIFICATE_LIST_READ_MS`,
 * default 5000, half the function's 10 s budget.
 */
export function readFor(): number {
  const value = Number(process.env.CERTIFICATE_LIST_READ_MS ?? 5_000);
  return Number.isInteger(value) && value >= 0 ? value : 5_000;
}

const narrow =
  'Narrow it with an exact id, filters on status and id only (answered from an index), or a smaller offset; or leave the count out with total=false.';
const tooBroad = (max: number) => new ValidationError(`This listing would read more than ${max} certificates. ${narrow}`);
const tooSlow = () => new ValidationError(`This listing reads more certificates than one request has time for. ${narrow}`);
const tooLarge = (max: number) =>
  new ValidationError(
    `This export holds more than ${max} certificates. Narrow it with filters (a status, or an expiryDate range) and export each part.`,
  );

/** The fields answered from the summaries (gsi1list). */
const summaryFields: readonly FilterField[] = ['id', 'status'];

/** A certificate with its catalogue product (what its validationType and certificateType come from). */
interface Listed {
  record: CertificateRecord;
  product: CertificateProduct;
}

async function withProducts(records: readonly CertificateRecord[]): Promise<Listed[]> {
  return Promise.all(records.map(async (record) => ({ record, product: await productOf(record) })));
}

/** The value of a filter field of a certificate, as its view answers it (the names joined, for `q`). */
function fieldValue(view: CertificateView, field: FilterField): string | undefined {
  const value = view[field];
  if (Array.isArray(value)) return value.join('\n');
  return value === undefined ? undefined : String(value);
}

/** Whether a certificate passes one filter: on `san`, any of its names passes (`eq`, `in`, `like`), or all of them do (`ne`, `not_in`, `not_like`). */
function passesFilter(view: CertificateView, filter: CertificateFilter): boolean {
  if (filter.field !== 'san')
    return passes(fieldValue(view, filter.field), filter, certificateListSpec.dates?.includes(filter.field) ?? false);
  const negative = filter.matcher === 'ne' || filter.matcher === 'not_in' || filter.matcher === 'not_like';
  return negative ? view.san.every((name) => passes(name, filter, false)) : view.san.some((name) => passes(name, filter, false));
}

/** The check of the filters and search on a listed certificate (or on a summary, for id and status). */
function matcherOf(filters: readonly CertificateFilter[], search: string | undefined) {
  const needle = search?.toLowerCase();
  return (view: Partial<CertificateView>): boolean =>
    filters.every((f) => passesFilter(view as CertificateView, f)) &&
    (needle === undefined ||
      certificateListSpec.search.some((field) =>
        fieldValue(view as CertificateView, field)
          ?.toLowerCase()
          .includes(needle),
      ));
}

/** One certificate by id: the source of an exact `id` filter (a page of it or none). */
function oneCertificate(customer: string, id: string): ListingSource<Listed> & { count: () => Promise<number> } {
  const read = async () => {
    const number = Number(id);
    const record = /^\d{1,15}$/.test(id) && number > 0 ? await getCertificateOf(customer, number) : undefined;
    return record ? withProducts([record]) : [];
  };
  return {
    readPage: async () => ({ records: await read(), read: 1 }),
    skip: async () => undefined,
    count: async () => (await read()).length,
  };
}

/** Every certificate of the customer's, in id order, with their products. */
function allCertificates(customer: string): ListingSource<Listed> {
  return {
    readPage: async (options) => {
      const page = await readCertificatePage(customer, options);
      return { records: await withProducts(page.certificates), read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: (count, ascending) => skipCertificates(customer, count, ascending),
  };
}

/** The customer's certificate summaries (id and status), the page's certificates then read whole. */
function summariesOf(customer: string): Summaries<CertificateSummary, Listed> {
  return {
    readPage: async (options) => {
      const page = await readCertificateSummaries(customer, options);
      return { records: page.summaries, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    fetch: async (summaries) =>
      withProducts(
        await readCertificatesById(
          customer,
          summaries.map((s) => s.id),
        ),
      ),
  };
}

function planOf(
  customer: string,
  query: CertificateQuery,
): { plan: ListingPlan<Listed, Partial<CertificateView>>; rest: CertificateFilter[] } {
  const id = query.filters.find((f) => f.field === 'id' && f.matcher === 'eq');
  if (id) {
    const rest = query.filters.filter((f) => f !== id);
    const source = oneCertificate(customer, id.values[0] as string);
    const exact = rest.length === 0 && query.search === undefined;
    return { plan: { source, exact, ...(exact ? { count: source.count } : {}) }, rest };
  }
  const source = allCertificates(customer);
  const exact = query.filters.length === 0 && query.search === undefined;
  if (exact) {
    const count = async () => {
      const counted = await countCertificates(customer, maxCount());
      if (!counted.complete) throw tooBroad(maxCount());
      return counted.count;
    };
    return { plan: { source, exact, count }, rest: [] };
  }
  const onSummaries = query.search === undefined && query.filters.every((f) => summaryFields.includes(f.field));
  return { plan: { source, exact, ...(onSummaries ? { summaries: summariesOf(customer) } : {}) }, rest: [...query.filters] };
}

/** What the filters and `q` read of a certificate: its view without the files (no filter reads them, and the fingerprint costs a parse). */
function summaryOf({ record, product }: Listed): CertificateView {
  const { certificate: _file, chain: _chain, ...rest } = record;
  return certificateViewOf(rest, product);
}

/** Lists the caller's certificates (a page, and by default the number of matches). */
export async function listCertificates(customer: string, query: CertificateQuery): Promise<ListingPage<Partial<CertificateView>>> {
  const { plan, rest } = planOf(customer, query);
  return listPage(plan, query, {
    matches: matcherOf(rest, query.search),
    summaryOf,
    view: ({ record, product }) => selectFields(certificateViewOf(record, product), query.fields),
    maxRead: maxRead(),
    maxExport: maxRead(),
    tooBroad,
    tooLarge,
    readFor: readFor(),
    tooSlow,
  });
}

/** The fields named in `fields` (every field when it is not given). */
function selectFields(view: CertificateView, fields: CertificateQuery['fields']): Partial<CertificateView> {
  if (fields === undefined) return view;
  return Object.fromEntries(fields.filter((f) => view[f] !== undefined).map((f) => [f, view[f]])) as Partial<CertificateView>;
}

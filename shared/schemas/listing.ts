import * as v from 'valibot';
import { QueryBoolean } from './primitives.ts';

/**
 * The listing parameters of the small catalogues (providers, SSL products), in the SDKs' names:
 * `limit`, `offset`, `q` (a case-insensitive search), `order` (by name, `-` for descending) and
 * `total`, each given once. The whole catalogue is read (a few dozen items) and a page cut from
 * it, so `pagination.total` is counted by default at no cost; `total=false` leaves it out.
 */

/** Page size when `limit` is not given, and the largest one may ask for (as the process list). */
export const catalogueDefaultLimit = 10;
export const catalogueMaxLimit = 100;
const maxOffset = 10_000;

function count(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.regex(/^\d{1,6}$/, `must be an integer from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be an integer from ${min} to ${max}`),
    v.maxValue(max, `must be an integer from ${min} to ${max}`),
  );
}

/** The query entries of a catalogue listing ordered by `field`. */
export function catalogueQuery<F extends string>(field: F) {
  return {
    limit: v.optional(count(1, catalogueMaxLimit)),
    offset: v.optional(count(0, maxOffset)),
    q: v.optional(v.pipe(v.string(), v.toLowerCase(), v.maxLength(100, 'must be at most 100 characters long'))),
    order: v.optional(v.picklist([field, `-${field}`] as const, `must be ${field} or -${field}`)),
    total: v.optional(QueryBoolean),
  };
}

/** What a caller asked of a catalogue listing. */
export interface CatalogueQuery {
  limit?: number;
  offset?: number;
  q?: string;
  order?: string;
  total?: boolean;
}

/** One page of a catalogue (the SDKs' Page and Pagination models). */
export interface CataloguePage<T> {
  entities: T[];
  pagination: { limit: number; offset: number; total?: number };
}

/** The page schema of a catalogue's entity schema. */
export function cataloguePage<S extends v.GenericSchema>(entity: S) {
  return v.strictObject({
    entities: v.array(entity),
    pagination: v.strictObject({
      limit: v.pipe(v.number(), v.integer()),
      offset: v.pipe(v.number(), v.integer()),
      total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many entries match; left out with `total=false`.'))),
    }),
  });
}

/**
 * A page of `items`: those whose search texts contain `q`, sorted by `key` (ascending unless the
 * order starts with `-`), `limit` of them from `offset`.
 */
export function catalogueSlice<T>(
  items: readonly T[],
  query: CatalogueQuery,
  key: (item: T) => string,
  texts: (item: T) => string[],
): CataloguePage<T> {
  const q = query.q;
  const matching = q ? items.filter((item) => texts(item).some((text) => text.toLowerCase().includes(q))) : [...items];
  const direction = query.order?.startsWith('-') ? -1 : 1;
  matching.sort((a, b) => (key(a) < key(b) ? -direction : key(a) > key(b) ? direction : 0));
  const limit = query.limit ?? catalogueDefaultLimit;
  const offset = query.offset ?? 0;
  return {
    entities: matching.slice(offset, offset + limit),
    pagination: { limit, offset, ...(query.total === false ? {} : { total: matching.length }) },
  };
}

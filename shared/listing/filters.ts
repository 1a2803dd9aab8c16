import type { Filter, ListSpec } from './query.ts';

/**
 * What a listing's filters and its search mean, one listed thing at a time (the filters no index
 * or count answers are checked here, on what the index returns).
 */

/**
 * Whether `text` matches a `like` pattern: `*` stands for any run of characters, the rest must
 * appear as written (case-insensitive). Linear: the pieces between the stars are found left to
 * right, each as early as it occurs (no backtracking, no regular expression).
 */
export function likeMatches(pattern: string, text: string): boolean {
  const pieces = pattern.toLowerCase().split('*');
  const subject = text.toLowerCase();
  const first = pieces[0] as string;
  if (pieces.length === 1) return subject === first;
  const last = pieces[pieces.length - 1] as string;
  if (subject.length < first.length + last.length || !subject.startsWith(first) || !subject.endsWith(last)) return false;
  const end = subject.length - last.length;
  let from = first.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue;
    const at = subject.indexOf(piece, from);
    if (at < 0 || at + piece.length > end) return false;
    from = at + piece.length;
  }
  return true;
}

/** The value of a filter field of one listed thing (undefined: the thing has none). */
export type ValueOf<R, F extends string> = (record: R, field: F) => string | undefined;

/** Whether one value passes one filter; a date field compares at the precision of the filter's value (a day or a second). */
export function passes(actual: string | undefined, { matcher, values }: Filter, isDate: boolean): boolean {
  if (matcher === 'null') return actual === undefined;
  if (matcher === 'not_null') return actual !== undefined;
  if (actual === undefined) return matcher === 'ne' || matcher === 'not_in' || matcher === 'not_like';
  const cut = (wanted: string) => (isDate ? actual.slice(0, wanted.length) : actual);
  const wanted = values[0] as string;
  const a = cut(wanted);
  switch (matcher) {
    case 'eq':
      return a === wanted;
    case 'ne':
      return a !== wanted;
    case 'in':
      return values.some((value) => cut(value) === value);
    case 'not_in':
      return !values.some((value) => cut(value) === value);
    case 'like':
      return likeMatches(wanted, actual);
    case 'not_like':
      return !likeMatches(wanted, actual);
    case 'gt':
      return a > wanted;
    case 'gte':
      return a >= wanted;
    case 'lt':
      return a < wanted;
    case 'lte':
      return a <= wanted;
  }
}

/** The check of a listing's filters and search on one listed thing. */
export function matcherOf<R, F extends string>(
  spec: ListSpec<F, string>,
  fieldOf: ValueOf<R, F>,
  filters: readonly Filter<F>[],
  search: string | undefined,
): (record: R) => boolean {
  const needle = search?.toLowerCase();
  return (record) =>
    filters.every((f) => passes(fieldOf(record, f.field), f, spec.dates?.includes(f.field) ?? false)) &&
    (needle === undefined || spec.search.some((field) => fieldOf(record, field)?.toLowerCase().includes(needle)));
}

import type { ProcessRecord } from '../model/process.ts';
import type { Filter, FilterField } from './list-request.ts';
import { statusDetailOf } from './view.ts';

/**
 * What the list's filters mean, one process at a time (the ones an index does not answer are
 * checked here, on the processes the index returns).
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

/** The value a filter looks at. */
function fieldValue(process: ProcessRecord, field: FilterField): string | undefined {
  return field === 'detailStatus' ? statusDetailOf(process) : process[field];
}

/** A createdDate compares at the precision of the filter's value: a day (`yyyy-MM-dd`) or a second. */
function comparable(field: FilterField, actual: string, wanted: string): string {
  return field === 'createdDate' ? actual.slice(0, wanted.length) : actual;
}

/** Whether one process passes one filter. */
export function passes(process: ProcessRecord, { field, matcher, values }: Filter): boolean {
  const actual = fieldValue(process, field);
  if (matcher === 'null') return actual === undefined;
  if (matcher === 'not_null') return actual !== undefined;
  if (actual === undefined) return matcher === 'ne';
  const wanted = values[0] as string;
  const a = comparable(field, actual, wanted);
  switch (matcher) {
    case 'eq':
      return a === wanted;
    case 'ne':
      return a !== wanted;
    case 'in':
      return values.some((value) => comparable(field, actual, value) === value);
    case 'like':
      return likeMatches(wanted, actual);
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

/** Whether a process passes every filter. */
export function passesAll(process: ProcessRecord, filters: readonly Filter[]): boolean {
  return filters.every((f) => passes(process, f));
}

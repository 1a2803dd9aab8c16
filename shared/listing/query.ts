import * as v from 'valibot';
import { queryBooleanIsTrue, queryBooleanSpellings } from '../schemas/primitives.ts';

/**
 * The generic listing of the API (`GET /v2/processes`, and every further listing), its query as
 * the SDKs send it: `limit` (0 counts only), `offset`, `order` (repeatable), `fields`, `total`
 * (on by default), `q` (a search over the listed fields), `export=true` (every match in one
 * answer), and filters written `field=value` or `field:matcher=value`, each parameter possibly
 * repeated (all filters apply). A listing describes itself with a ListSpec; parsing gives a
 * ListQuery; anything unknown or malformed is a ConstraintViolationException naming the parameter.
 */

/** Every matcher the SDKs know; the ones a field does not take are refused for it. */
export const matchers = ['eq', 'ne', 'like', 'not_like', 'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'] as const;
export type Matcher = (typeof matchers)[number];

/** The matchers a matcher brings with it: a field that takes `in` takes `not_in`, one that takes `like` `not_like`. */
const negations: Partial<Record<Matcher, Matcher>> = { in: 'not_in', like: 'not_like' };

/** The matchers a filter field takes: those its listing names, and their negations. */
export function matchersOf(named: readonly Matcher[]): Matcher[] {
  return named.flatMap((m) => [m, ...(negations[m] !== undefined && !named.includes(negations[m]) ? [negations[m]] : [])]);
}

/** One filter: the field, the matcher, and its values (one, or the list of `in`). */
export interface Filter<F extends string = string> {
  field: F;
  matcher: Matcher;
  values: string[];
}

/** What a listing is: its name, filters, fields, orders and search, for parsing and documenting. */
export interface ListSpec<F extends string, Field extends string> {
  /** The plural noun of the listed things (`processes`), for messages. */
  noun: string;
  /** The fields that can be filtered on, and the matchers each takes (`eq` is `field=value`). */
  filters: Record<F, readonly Matcher[]>;
  /** The values a filter field takes, where they are a closed set. */
  closedValues?: Partial<Record<F, readonly string[]>>;
  /** Filter fields holding a wire time, compared at the precision of the filter's value (a day or a second). */
  dates?: readonly F[];
  /** Every field of a listed thing (what `fields` may name). */
  fields: readonly Field[];
  /** The fields `export=true` answers without `fields`: those that identify a thing. */
  identifying: readonly Field[];
  /** The sort keys `order` takes (each also with a leading `-`, descending). */
  orders: readonly string[];
  /** The order without `order` (a key, `-` for descending). */
  defaultOrder: string;
  /** The filter fields `q` searches (case-insensitive, anywhere in the value). */
  search: readonly F[];
}

/** The page size without `limit`, the largest `limit` and the deepest `offset`. */
export const defaultLimit = 10;
export const maxLimit = 100;
export const maxOffset = 10_000;
const maxInValues = 100;
const maxValueLength = 255;

/** The listing a caller asked for. */
export interface ListQuery<F extends string, Field extends string> {
  /** 0: the count only. */
  limit: number;
  offset: number;
  /** The sort keys in order, each with its direction. */
  order: { key: string; ascending: boolean }[];
  fields?: Field[];
  total: boolean;
  filters: Filter<F>[];
  /** `q`: text to find in any of the spec's search fields. */
  search?: string;
  /** `export=true`: every match in one answer. */
  export: boolean;
}

/** A problem with one query parameter. */
export interface Problem {
  parameter: string;
  message: string;
  value?: string;
}

/** The parameters every listing takes besides its filters. */
const general = ['limit', 'offset', 'order', 'fields', 'total', 'q', 'export'];

const single = (name: string, values: string[], problems: Problem[]): string | undefined => {
  if (values.length > 1) problems.push({ parameter: name, message: 'must be given once' });
  return values[values.length - 1];
};

function integer(name: string, values: string[], min: number, max: number, fallback: number, problems: Problem[]): number {
  const value = single(name, values, problems);
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max) {
    problems.push({ parameter: name, message: `must be an integer from ${min} to ${max}`, value });
    return fallback;
  }
  return Number(value);
}

function boolean(name: string, values: string[] | undefined, fallback: boolean, problems: Problem[]): boolean {
  const value = values === undefined ? undefined : single(name, values, problems)?.toLowerCase();
  if (value === undefined) return fallback;
  if (!(queryBooleanSpellings as readonly string[]).includes(value)) {
    problems.push({ parameter: name, message: 'must be true or false', value });
    return fallback;
  }
  return queryBooleanIsTrue(value);
}

/** A list parameter's values, repeated or comma-separated (`fields=id,status` or `fields=id&fields=status`). */
const listValues = (values: string[]) => values.flatMap((value) => value.split(',').map((part) => part.trim()));

/** `fields`: names of the spec's fields, repeated or comma-separated; unknown ones are problems. */
export function parseFields<Field extends string>(
  fieldsOf: readonly Field[],
  noun: string,
  values: string[] | undefined,
  problems: Problem[],
): Field[] | undefined {
  if (values === undefined) return undefined;
  const fields = listValues(values);
  const known = (f: string): f is Field => (fieldsOf as readonly string[]).includes(f);
  for (const f of fields) {
    if (!known(f)) problems.push({ parameter: 'fields', message: `names no field of a ${noun} (${fieldsOf.join(', ')})`, value: f });
  }
  return [...new Set(fields)].filter(known);
}

function parseOrder(spec: ListSpec<string, string>, values: string[] | undefined, problems: Problem[]): ListQuery<string, string>['order'] {
  const keys = listValues(values ?? []);
  const allowed = spec.orders.flatMap((o) => [o, `-${o}`]);
  const out: ListQuery<string, string>['order'] = [];
  for (const key of keys.length > 0 ? keys : [spec.defaultOrder]) {
    if (!allowed.includes(key)) problems.push({ parameter: 'order', message: `must be one of ${allowed.join(', ')}`, value: key });
    else out.push({ key: key.replace(/^-/, ''), ascending: !key.startsWith('-') });
  }
  return out;
}

/** A date or time of a date filter as it compares: `yyyy-MM-dd` (the whole day) or a wire time. */
const dateValue = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/;

function checkValues<F extends string>(
  spec: ListSpec<F, string>,
  field: F,
  parameter: string,
  values: string[],
  problems: Problem[],
): void {
  const known = spec.closedValues?.[field];
  for (const value of values) {
    if (value.length > maxValueLength) problems.push({ parameter, message: `values must be at most ${maxValueLength} characters long` });
    else if (known && !known.includes(value)) problems.push({ parameter, message: `must be one of ${known.join(', ')}`, value });
    else if (spec.dates?.includes(field) && !dateValue.test(value)) {
      problems.push({ parameter, message: 'must be a date (yyyy-MM-dd) or a time (yyyy-MM-ddTHH:mm:ssZ)', value });
    }
  }
}

function parseFilter<F extends string>(
  spec: ListSpec<F, string>,
  parameter: string,
  value: string,
  problems: Problem[],
): Filter<F> | undefined {
  const [name = '', matcher = 'eq', ...rest] = parameter.split(':');
  if (!Object.hasOwn(spec.filters, name)) {
    problems.push({ parameter, message: `is not a field ${spec.noun} can be filtered on (${Object.keys(spec.filters).join(', ')})` });
    return undefined;
  }
  const field = name as F;
  const taken: readonly string[] = matchersOf(spec.filters[field]);
  if (rest.length > 0 || !(matchers as readonly string[]).includes(matcher)) {
    problems.push({ parameter, message: `has no matcher '${parameter.slice(name.length + 1)}' (matchers: ${matchers.join(', ')})` });
    return undefined;
  }
  if (!taken.includes(matcher)) {
    problems.push({ parameter, message: `${field} cannot be matched with ${matcher} (it takes ${taken.join(', ')})` });
    return undefined;
  }
  if (matcher === 'null' || matcher === 'not_null') return { field, matcher, values: [] };
  const values = matcher === 'in' || matcher === 'not_in' ? value.split(',').map((s) => s.trim()) : [value];
  if (values.length > maxInValues) problems.push({ parameter, message: `takes at most ${maxInValues} values` });
  checkValues(spec, field, parameter, values, problems);
  return { field, matcher: matcher as Matcher, values };
}

/** Parses a listing's whole query; the problems found go to `problems`. */
export function parseListQuery<F extends string, Field extends string>(
  spec: ListSpec<F, Field>,
  query: Record<string, string[] | undefined>,
  problems: Problem[],
): ListQuery<F, Field> {
  const filters: Filter<F>[] = [];
  for (const [parameter, values] of Object.entries(query)) {
    if (general.includes(parameter) || values === undefined) continue;
    for (const value of values) {
      const filter = parseFilter(spec, parameter, value, problems);
      if (filter) filters.push(filter);
    }
  }
  const q = query.q === undefined ? undefined : single('q', query.q, problems);
  if (q !== undefined && q.length > maxValueLength)
    problems.push({ parameter: 'q', message: `must be at most ${maxValueLength} characters long` });
  const exporting = boolean('export', query.export, false, problems);
  if (exporting) {
    for (const parameter of ['limit', 'offset'] as const) {
      if (query[parameter] !== undefined) {
        problems.push({ parameter, message: `cannot be combined with export=true (an export answers every match)` });
      }
    }
  }
  const fields = parseFields(spec.fields, spec.noun.replace(/e?s$/, ''), query.fields, problems);
  return {
    limit: integer('limit', query.limit ?? [], 0, maxLimit, defaultLimit, problems),
    offset: integer('offset', query.offset ?? [], 0, maxOffset, 0, problems),
    order: parseOrder(spec as ListSpec<string, string>, query.order, problems),
    ...(fields ? { fields } : exporting ? { fields: [...spec.identifying] } : {}),
    total: boolean('total', query.total, true, problems),
    filters,
    ...(q !== undefined && q !== '' ? { search: q } : {}),
    export: exporting,
  };
}

/** A query parameter's values as the pipeline passes them on a list route: every value, in order. */
const Values = v.array(v.string());

/** Describes one documented parameter (the OpenAPI document lists these; filters with a matcher follow the same rules). */
export const documented = (description: string) => v.optional(v.pipe(Values, v.description(description)));

/** Turns the problems found into the schema's issues, one per problem, each naming its parameter. */
export function withProblems<I extends Record<string, string[] | undefined>, T>(parse: (query: I, problems: Problem[]) => T) {
  return v.rawTransform<I, T>(({ dataset, addIssue, NEVER }) => {
    const problems: Problem[] = [];
    const parsed = parse(dataset.value, problems);
    for (const p of problems) {
      addIssue({
        message: p.message,
        input: p.value,
        path: [{ type: 'object', origin: 'value', input: dataset.value as Record<string, unknown>, key: p.parameter, value: p.value }],
      });
    }
    return problems.length > 0 ? NEVER : parsed;
  });
}

/** The general parameters of a listing, documented (its filters are added by the listing). */
export function generalParameters(spec: ListSpec<string, string>) {
  const orders = spec.orders.flatMap((o) => [`\`${o}\``, `\`-${o}\``]).join(', ');
  return {
    limit: documented(`Page size, 0 to ${maxLimit}; default ${defaultLimit}. \`0\` answers only the count (\`pagination.total\`).`),
    offset: documented(`How many matching ${spec.noun} to skip, 0 to ${maxOffset}; default 0.`),
    order: documented(`Sort keys, repeated or comma-separated: ${orders} (\`-\` descending); default \`${spec.defaultOrder}\`.`),
    fields: documented(`The fields each entity carries (repeated or comma-separated): ${spec.fields.join(', ')}.`),
    total: documented('`false` leaves `pagination.total` out; by default every listing counts its matches.'),
    q: documented(`${spec.noun} one of whose fields ${spec.search.join(', ')} contains this text (case-insensitive).`),
    export: documented(
      `\`true\` answers every match in one answer (no \`limit\` or \`offset\`), with the fields ${spec.identifying.join(', ')} unless \`fields\` names others.`,
    ),
  };
}

/** A documented filter parameter. */
export const filterParameter = (field: string, example: string) =>
  documented(
    `Filter on ${field}: \`${field}=${example}\`; also \`${field}:<matcher>=...\`, see the description. Repeat a parameter for several filters (all apply).`,
  );

/**
 * The query of a GET of one object (`GET /v2/processes/{processId}`, a domain, a contact):
 * `fields` only, repeated or comma-separated, each one of `fieldsOf` (other parameters are ignored).
 */
export function fieldsQuery<Field extends string>(fieldsOf: readonly Field[], noun: string) {
  const FieldsParameter = v.object({
    fields: v.optional(
      v.pipe(v.array(v.string()), v.description(`The fields the ${noun} carries (repeated or comma-separated): ${fieldsOf.join(', ')}.`)),
    ),
  });
  return v.pipe(
    FieldsParameter,
    withProblems<v.InferOutput<typeof FieldsParameter>, { fields?: Field[] }>((query, problems) => {
      const fields = parseFields(fieldsOf, noun, query.fields, problems);
      return fields ? { fields } : {};
    }),
  );
}

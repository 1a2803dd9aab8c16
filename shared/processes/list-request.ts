import * as v from 'valibot';
import { processStatuses } from '../model/process.ts';
import { transferStatuses } from '../model/transfer.ts';
import type { ProcessField } from './process-view.ts';
import { processFields, sslRequiresAttention } from './view.ts';

/**
 * The query of `GET /v2/processes` (and `fields` of `GET /v2/processes/{processId}`) as the SDKs
 * send it: `limit`, `offset`, `order`, `fields`, `total`, `q`, and filters written `field=value` or
 * `field:matcher=value`, each parameter possibly repeated (the TS SDK repeats list values; several
 * filters all apply). Every value arrives as a list of strings; anything unknown or malformed is
 * a ConstraintViolationException naming the parameter.
 */

/** Page size when `limit` is not given, and the largest one may ask for. */
export const defaultLimit = 10;
export const maxLimit = 100;
/** The deepest a page may start: deeper pages must narrow the listing with filters. */
export const maxOffset = 10_000;

/** Fields that can be filtered on, and the matchers each one takes (`eq` is `field=value`). */
export const filterMatchers = {
  status: ['eq', 'ne', 'in'],
  type: ['eq', 'ne', 'in', 'like'],
  action: ['eq', 'ne', 'in', 'like'],
  identifier: ['eq', 'ne', 'in', 'like', 'null', 'not_null'],
  createdDate: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  detailStatus: ['eq', 'ne', 'in', 'null', 'not_null'],
} as const;
export type FilterField = keyof typeof filterMatchers;

/** Every matcher the SDKs know; the ones a field does not take are refused for it. */
const matchers = ['eq', 'ne', 'like', 'in', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'] as const;
export type Matcher = (typeof matchers)[number];

/** One filter: the field, the matcher, and its values (one, or the list of `in`). */
export interface Filter {
  field: FilterField;
  matcher: Matcher;
  values: string[];
}

/** The listing a caller asked for. */
export interface ProcessQuery {
  limit: number;
  offset: number;
  /** Newest first unless an ascending order was asked for. */
  ascending: boolean;
  fields?: ProcessField[];
  total: boolean;
  filters: Filter[];
}

/** The values `detailStatus` takes: the transfer statuses and SSL_REQUIRES_ATTENTION. */
export const detailStatuses: readonly string[] = [...transferStatuses, sslRequiresAttention];

const orders = ['id', '-id', 'createdDate', '-createdDate'];
const maxInValues = 100;
const maxValueLength = 255;

/** A problem with one query parameter. */
interface Problem {
  parameter: string;
  message: string;
  value?: string;
}

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

/** A list parameter's values, repeated or comma-separated (`fields=id,status` or `fields=id&fields=status`). */
const listValues = (values: string[]) => values.flatMap((value) => value.split(',').map((part) => part.trim()));

function parseFields(values: string[] | undefined, problems: Problem[]): ProcessField[] | undefined {
  if (values === undefined) return undefined;
  const fields = listValues(values);
  for (const f of fields) {
    if (!(processFields as readonly string[]).includes(f)) {
      problems.push({ parameter: 'fields', message: `names no field of a process (${processFields.join(', ')})`, value: f });
    }
  }
  return [...new Set(fields)].filter((f): f is ProcessField => (processFields as readonly string[]).includes(f));
}

function parseOrder(values: string[] | undefined, problems: Problem[]): boolean {
  const keys = listValues(values ?? []);
  for (const key of keys) {
    if (!orders.includes(key)) problems.push({ parameter: 'order', message: `must be one of ${orders.join(', ')}`, value: key });
  }
  // Ids are claimed in creation order, so createdDate and id sort alike; the first key decides.
  return keys[0] !== undefined && !keys[0].startsWith('-');
}

/** A date or time of a createdDate filter as it compares: `yyyy-MM-dd` (the whole day) or a wire time. */
const dateValue = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/;

/** Checks the values of one filter against its field. */
function checkValues(field: FilterField, parameter: string, values: string[], problems: Problem[]): void {
  const allowed: Partial<Record<FilterField, readonly string[]>> = { status: processStatuses, detailStatus: detailStatuses };
  for (const value of values) {
    const known = allowed[field];
    if (value.length > maxValueLength) problems.push({ parameter, message: `values must be at most ${maxValueLength} characters long` });
    else if (known && !known.includes(value)) problems.push({ parameter, message: `must be one of ${known.join(', ')}`, value });
    else if (field === 'createdDate' && !dateValue.test(value)) {
      problems.push({ parameter, message: 'must be a date (yyyy-MM-dd) or a time (yyyy-MM-ddTHH:mm:ssZ)', value });
    }
  }
}

/** One filter parameter (`status`, `createdDate:gte`, ...) with one of its values. */
function parseFilter(parameter: string, value: string, problems: Problem[]): Filter | undefined {
  const [name = '', matcher = 'eq', ...rest] = parameter.split(':');
  if (!Object.hasOwn(filterMatchers, name)) {
    problems.push({ parameter, message: `is not a field processes can be filtered on (${Object.keys(filterMatchers).join(', ')})` });
    return undefined;
  }
  const field = name as FilterField;
  const taken: readonly string[] = filterMatchers[field];
  if (rest.length > 0 || !(matchers as readonly string[]).includes(matcher)) {
    problems.push({ parameter, message: `has no matcher '${parameter.slice(name.length + 1)}' (matchers: ${matchers.join(', ')})` });
    return undefined;
  }
  if (!taken.includes(matcher)) {
    problems.push({ parameter, message: `${field} cannot be matched with ${matcher} (it takes ${taken.join(', ')})` });
    return undefined;
  }
  if (matcher === 'null' || matcher === 'not_null') return { field, matcher, values: [] };
  const values = matcher === 'in' ? value.split(',').map((s) => s.trim()) : [value];
  if (values.length > maxInValues) problems.push({ parameter, message: `takes at most ${maxInValues} values` });
  checkValues(field, parameter, values, problems);
  return { field, matcher: matcher as Matcher, values };
}

/** Parses the whole query; the problems found go to `problems`. */
export function parseProcessQuery(query: Record<string, string[] | undefined>, problems: Problem[]): ProcessQuery {
  const filters: Filter[] = [];
  for (const [parameter, values] of Object.entries(query)) {
    if (['limit', 'offset', 'order', 'fields', 'total', 'q'].includes(parameter) || values === undefined) continue;
    for (const value of values) {
      const filter = parseFilter(parameter, value, problems);
      if (filter) filters.push(filter);
    }
  }
  const q = query.q === undefined ? undefined : single('q', query.q, problems);
  if (q !== undefined && q !== '') {
    if (q.length > maxValueLength) problems.push({ parameter: 'q', message: `must be at most ${maxValueLength} characters long` });
    filters.push({ field: 'identifier', matcher: 'like', values: [`*${q}*`] });
  }
  const total = query.total === undefined ? undefined : single('total', query.total, problems)?.toLowerCase();
  if (total !== undefined && total !== 'true' && total !== 'false')
    problems.push({ parameter: 'total', message: 'must be true or false', value: total });
  const fields = parseFields(query.fields, problems);
  return {
    limit: integer('limit', query.limit ?? [], 1, maxLimit, defaultLimit, problems),
    offset: integer('offset', query.offset ?? [], 0, maxOffset, 0, problems),
    ascending: parseOrder(query.order, problems),
    ...(fields ? { fields } : {}),
    total: total === 'true',
    filters,
  };
}

/** A query parameter's values as the pipeline passes them on a list route: every value, in order. */
const Values = v.array(v.string());

/** Describes one documented parameter (the OpenAPI document lists these; filters with a matcher follow the same rules). */
const documented = (description: string) => v.optional(v.pipe(Values, v.description(description)));

/** Turns the problems found into the schema's issues, one per problem, each naming its parameter. */
function withProblems<I extends Record<string, string[] | undefined>, T>(parse: (query: I, problems: Problem[]) => T) {
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

const filterHelp = (field: string, example: string) =>
  `Filter on ${field}: \`${field}=${example}\`; also \`${field}:<matcher>=...\`, see the description. Repeat a parameter for several filters (all apply).`;

/** The parameters of `GET /v2/processes`: the documented ones, and any further (filter) parameter. */
const ListParameters = v.objectWithRest(
  {
    limit: documented(`Page size, 1 to ${maxLimit}; default ${defaultLimit}.`),
    offset: documented(`How many matching processes to skip, 0 to ${maxOffset}; default 0.`),
    order: documented('`id` or `createdDate` (oldest first), `-id` or `-createdDate` (newest first, the default).'),
    fields: documented(`The fields each entity carries (repeated or comma-separated): ${processFields.join(', ')}.`),
    total: documented('`true` counts every match into `pagination.total` (it costs reads: only when asked).'),
    q: documented('Processes whose identifier contains this text (case-insensitive).'),
    status: documented(filterHelp('status', 'RUNNING')),
    type: documented(filterHelp('type', 'certificate')),
    action: documented(filterHelp('action', 'transfer')),
    identifier: documented(filterHelp('identifier', 'transfer-wait.com')),
    createdDate: documented(filterHelp('createdDate', '2026-11-21')),
    detailStatus: documented(filterHelp('detailStatus', sslRequiresAttention)),
  },
  Values,
);

/** The query of `GET /v2/processes`, parsed into a ProcessQuery. */
export const ProcessListQuery = v.pipe(ListParameters, withProblems<v.InferOutput<typeof ListParameters>, ProcessQuery>(parseProcessQuery));

const FieldsParameter = v.object({
  fields: documented(`The fields the process carries (repeated or comma-separated): ${processFields.join(', ')}.`),
});

/** The query of `GET /v2/processes/{processId}`: `fields` only (other parameters are ignored). */
export const ProcessFieldsQuery = v.pipe(
  FieldsParameter,
  withProblems<v.InferOutput<typeof FieldsParameter>, { fields?: ProcessField[] }>((query, problems) => {
    const fields = parseFields(query.fields, problems);
    return fields ? { fields } : {};
  }),
);

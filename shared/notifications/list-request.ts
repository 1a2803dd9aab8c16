import * as v from 'valibot';
import { eventTypes, notificationTypes, subjectStatuses } from '../model/notification.ts';
import type { NotificationField } from './notification-view.ts';

/**
 * The query of `GET /v2/customers/{customer}/notifications`, as the SDKs send it (the TS SDK's
 * NotificationListParams, the PHP SDK's list): `limit` (0 answers the count only), `offset`,
 * `order`, `fields`, `total` (counted unless `total=false`), `q`, and filters written `field=value`
 * or `field:matcher=value`, each parameter possibly repeated (all filters apply). Anything unknown
 * or malformed is a ConstraintViolationException naming the parameter. The same parameters as the
 * process listing (shared/processes/list-request.ts), over a notification's fields.
 */

export const defaultLimit = 10;
export const maxLimit = 100;
export const maxOffset = 10_000;

/** Every field of a notification (what `fields` may name); test/notifications.test.ts checks it against the view. */
export const notificationFields: readonly NotificationField[] = [
  'id',
  'customer',
  'fireDate',
  'readDate',
  'acknowledgeDate',
  'deliveryDate',
  'message',
  'reason',
  'process',
  'processType',
  'processIdentifier',
  'eventType',
  'notificationType',
  'isAsync',
  'subjectStatus',
  'statusDetail',
  'domainName',
  'transferType',
  'requestedDate',
  'actionDate',
  'expiryDate',
  'certificateId',
  'product',
  'payload',
];

const text = ['eq', 'ne', 'in', 'like'] as const;
const date = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'] as const;

/** The fields a listing filters on, and the matchers each takes (`eq` is `field=value`). */
export const filterMatchers = {
  id: ['eq', 'in'],
  process: ['eq', 'in', 'null', 'not_null'],
  eventType: text,
  notificationType: text,
  processType: text,
  processIdentifier: [...text, 'null', 'not_null'],
  subjectStatus: ['eq', 'ne', 'in'],
  statusDetail: ['eq', 'ne', 'in'],
  message: ['like'],
  fireDate: date,
  readDate: date,
  acknowledgeDate: date,
  deliveryDate: date,
} as const;
export type FilterField = keyof typeof filterMatchers;

const matchers = ['eq', 'ne', 'like', 'in', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null'] as const;
export type Matcher = (typeof matchers)[number];

export interface Filter {
  field: FilterField;
  matcher: Matcher;
  values: string[];
}

export interface NotificationQuery {
  limit: number;
  offset: number;
  /** Newest first unless `order=fireDate`. */
  ascending: boolean;
  fields?: NotificationField[];
  total: boolean;
  filters: Filter[];
  /** `export=true` (the PHP SDK's export): every match in one answer, within the read limit. */
  export: boolean;
}

const orders = ['fireDate', '-fireDate', 'id', '-id'];
const maxInValues = 100;
const maxValueLength = 255;
const dateValue = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/;
const idValue = /^[1-9][0-9]{0,15}$/;
const known: Partial<Record<FilterField, readonly string[]>> = {
  eventType: eventTypes,
  notificationType: notificationTypes,
  subjectStatus: subjectStatuses,
};

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

const listValues = (values: string[]) => values.flatMap((value) => value.split(',').map((part) => part.trim()));

function parseFields(values: string[] | undefined, problems: Problem[]): NotificationField[] | undefined {
  if (values === undefined) return undefined;
  const fields = listValues(values);
  for (const f of fields) {
    if (!(notificationFields as readonly string[]).includes(f)) {
      problems.push({ parameter: 'fields', message: `names no field of a notification (${notificationFields.join(', ')})`, value: f });
    }
  }
  return [...new Set(fields)].filter((f): f is NotificationField => (notificationFields as readonly string[]).includes(f));
}

function parseOrder(values: string[] | undefined, problems: Problem[]): boolean {
  const keys = listValues(values ?? []);
  for (const key of keys) {
    if (!orders.includes(key)) problems.push({ parameter: 'order', message: `must be one of ${orders.join(', ')}`, value: key });
  }
  return keys[0] !== undefined && !keys[0].startsWith('-');
}

function checkValues(field: FilterField, parameter: string, values: string[], problems: Problem[]): void {
  for (const value of values) {
    const allowed = known[field];
    if (value.length > maxValueLength) problems.push({ parameter, message: `values must be at most ${maxValueLength} characters long` });
    else if (allowed && !allowed.includes(value)) problems.push({ parameter, message: `must be one of ${allowed.join(', ')}`, value });
    else if (field.endsWith('Date') && !dateValue.test(value)) {
      problems.push({ parameter, message: 'must be a date (yyyy-MM-dd) or a time (yyyy-MM-ddTHH:mm:ssZ)', value });
    } else if ((field === 'id' || field === 'process') && !idValue.test(value)) {
      problems.push({ parameter, message: 'must be a positive integer', value });
    }
  }
}

function parseFilter(parameter: string, value: string, problems: Problem[]): Filter | undefined {
  const [name = '', matcher = 'eq', ...rest] = parameter.split(':');
  if (!Object.hasOwn(filterMatchers, name)) {
    problems.push({ parameter, message: `is not a field notifications can be filtered on (${Object.keys(filterMatchers).join(', ')})` });
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

const reserved = ['limit', 'offset', 'order', 'fields', 'total', 'q', 'export'];

export function parseNotificationQuery(query: Record<string, string[] | undefined>, problems: Problem[]): NotificationQuery {
  const filters: Filter[] = [];
  for (const [parameter, values] of Object.entries(query)) {
    if (reserved.includes(parameter) || values === undefined) continue;
    for (const value of values) {
      const filter = parseFilter(parameter, value, problems);
      if (filter) filters.push(filter);
    }
  }
  const exported = query.export === undefined ? undefined : single('export', query.export, problems)?.toLowerCase();
  if (exported !== undefined && exported !== 'true' && exported !== 'false')
    problems.push({ parameter: 'export', message: 'must be true or false', value: exported });
  const exporting = exported === 'true';
  if (exporting)
    for (const parameter of ['limit', 'offset'])
      if (query[parameter] !== undefined)
        problems.push({ parameter, message: 'cannot be combined with export=true (an export answers every match)' });
  const q = query.q === undefined ? undefined : single('q', query.q, problems);
  if (q !== undefined && q !== '') {
    if (q.length > maxValueLength) problems.push({ parameter: 'q', message: `must be at most ${maxValueLength} characters long` });
    filters.push({ field: 'message', matcher: 'like', values: [`*${q}*`] });
  }
  const total = query.total === undefined ? undefined : single('total', query.total, problems)?.toLowerCase();
  if (total !== undefined && total !== 'true' && total !== 'false')
    problems.push({ parameter: 'total', message: 'must be true or false', value: total });
  const fields = parseFields(query.fields, problems);
  return {
    limit: integer('limit', query.limit ?? [], 0, maxLimit, defaultLimit, problems),
    offset: integer('offset', query.offset ?? [], 0, maxOffset, 0, problems),
    ascending: parseOrder(query.order, problems),
    ...(fields ? { fields } : {}),
    total: total !== 'false',
    filters,
    export: exporting,
  };
}

const Values = v.array(v.string());
const documented = (description: string) => v.optional(v.pipe(Values, v.description(description)));
const filterHelp = (field: string, example: string) =>
  `Filter on ${field}: \`${field}=${example}\`; also \`${field}:<matcher>=...\`. Repeat a parameter for several filters (all apply).`;

const ListParameters = v.objectWithRest(
  {
    limit: documented(`Page size, 0 to ${maxLimit} (0: the total only); default ${defaultLimit}.`),
    offset: documented(`How many matching notifications to skip, 0 to ${maxOffset}; default 0.`),
    order: documented('`-fireDate` (newest first, the default) or `fireDate` (oldest first); `id` and `-id` sort alike.'),
    fields: documented(`The fields each entity carries (repeated or comma-separated): ${notificationFields.join(', ')}.`),
    total: documented('`pagination.total` is counted unless `total=false`.'),
    export: documented('`export=true`: every matching notification in one answer (no `limit` or `offset`), within the read limit.'),
    q: documented('Notifications whose message contains this text (case-insensitive).'),
    eventType: documented(filterHelp('eventType', 'TransferDomainEvent')),
    notificationType: documented(filterHelp('notificationType', 'TransferDomainNotification')),
    processIdentifier: documented(filterHelp('processIdentifier', 'example.com')),
    acknowledgeDate: documented(
      `${filterHelp('acknowledgeDate', '2026-11-21')} \`acknowledgeDate:null=\` lists the unacknowledged ones only (from the poll queue's index).`,
    ),
  },
  Values,
);

/** The query of the notification listing, parsed into a NotificationQuery. */
export const NotificationListQuery = v.pipe(
  ListParameters,
  v.rawTransform<v.InferOutput<typeof ListParameters>, NotificationQuery>(({ dataset, addIssue, NEVER }) => {
    const problems: Problem[] = [];
    const parsed = parseNotificationQuery(dataset.value, problems);
    for (const p of problems) {
      addIssue({
        message: p.message,
        input: p.value,
        path: [{ type: 'object', origin: 'value', input: dataset.value as Record<string, unknown>, key: p.parameter, value: p.value }],
      });
    }
    return problems.length > 0 ? NEVER : parsed;
  }),
);

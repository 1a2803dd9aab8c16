import { countNotifications, type NotificationSource, readNotificationPage } from '../db/repositories/notifications.ts';
import { AuthorizationError, ValidationError } from '../errors.ts';
import { likeMatches } from '../listing/filters.ts';
import type { NotificationRecord } from '../model/notification.ts';
import type { Filter, NotificationQuery } from './list-request.ts';
import type { NotificationField, NotificationPage } from './notification-view.ts';

/**
 * A customer's notifications, a page at a time (`GET /v2/customers/{customer}/notifications`):
 * only the caller's own (another customer's handle is refused before anything is read), by fire
 * date, newest first by default. `acknowledgeDate:null` reads the poll queue's index (the
 * unacknowledged only); anything else reads the customer's listing and checks the filters on what
 * it returns, reading at most maxRead() items per request (a broader request is refused).
 */

/** The most notifications one request reads: `NOTIFICATION_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.NOTIFICATION_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}
const maxPageItems = 1_000;

/** Refuses any customer but the caller's own (the price list's rule). */
export function ownQueue(caller: string, customer: string): void {
  if (customer !== caller) throw new AuthorizationError(`The notifications and webhook of customer '${customer}' are not yours.`);
}

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} notifications. Narrow it with acknowledgeDate:null, fireDate filters, or a smaller offset.`,
  );

function fieldValue(n: NotificationRecord, field: Filter['field']): string | undefined {
  const value = n[field];
  return value === undefined ? undefined : String(value);
}

/** Whether one notification passes one filter (dates compare at the precision of the filter's value). */
export function passes(n: NotificationRecord, { field, matcher, values }: Filter): boolean {
  const actual = fieldValue(n, field);
  if (matcher === 'null') return actual === undefined;
  if (matcher === 'not_null') return actual !== undefined;
  if (actual === undefined) return matcher === 'ne';
  const cut = (wanted: string) => (field.endsWith('Date') ? actual.slice(0, wanted.length) : actual);
  const wanted = values[0] as string;
  switch (matcher) {
    case 'eq':
      return cut(wanted) === wanted;
    case 'ne':
      return cut(wanted) !== wanted;
    case 'in':
      return values.some((value) => cut(value) === value);
    case 'like':
      return likeMatches(wanted, actual);
    case 'gt':
      return cut(wanted) > wanted;
    case 'gte':
      return cut(wanted) >= wanted;
    case 'lt':
      return cut(wanted) < wanted;
    case 'lte':
      return cut(wanted) <= wanted;
  }
}

function selectFields(n: NotificationRecord, fields: readonly NotificationField[] | undefined): Partial<NotificationRecord> {
  if (fields === undefined) return n;
  return Object.fromEntries(fields.filter((f) => n[f] !== undefined).map((f) => [f, n[f]]));
}

export async function listNotifications(caller: string, customer: string, query: NotificationQuery): Promise<NotificationPage> {
  ownQueue(caller, customer);
  const unacknowledged = query.filters.find((f) => f.field === 'acknowledgeDate' && f.matcher === 'null');
  const source: NotificationSource = unacknowledged ? 'unacknowledged' : 'all';
  const rest = query.filters.filter((f) => f !== unacknowledged);
  const max = maxRead();
  const end = query.export ? Number.POSITIVE_INFINITY : query.offset + query.limit;
  const readAll = query.export || (query.total && rest.length > 0);
  const wanted = readAll ? Number.POSITIVE_INFINITY : end;
  const found: NotificationRecord[] = [];
  let read = 0;
  let start: Record<string, unknown> | undefined;
  if (wanted > 0) {
    do {
      const missing = wanted - found.length;
      const size = Math.min(maxPageItems, Math.max(Number.isFinite(missing) ? missing : maxPageItems, read), max + 1 - read);
      const page = await readNotificationPage(customer, source, { limit: size, ascending: query.ascending, ...(start ? { start } : {}) });
      read += page.read;
      start = page.next;
      for (const n of page.notifications) if (found.length < wanted && rest.every((f) => passes(n, f))) found.push(n);
      if (read > max && found.length < wanted && start) throw tooBroad(max);
    } while (found.length < wanted && start);
  }
  let total: number | undefined;
  if (readAll) total = found.length;
  else if (query.total) {
    const counted = await countNotifications(customer, source, max - read);
    if (!counted.complete) throw tooBroad(max);
    total = counted.count;
  }
  if (query.export)
    return {
      entities: found.map((n) => selectFields(n, query.fields)),
      pagination: { limit: found.length, offset: 0, ...(query.total ? { total: found.length } : {}) },
    } as NotificationPage;
  return {
    entities: found.slice(query.offset, end).map((n) => selectFields(n, query.fields)),
    pagination: { limit: query.limit, offset: query.offset, ...(total !== undefined ? { total } : {}) },
  } as NotificationPage;
}

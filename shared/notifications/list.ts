import { readNotificationCounts } from '../db/repositories/notification-counts.ts';
import { type NotificationSource, readNotificationPage, skipNotifications } from '../db/repositories/notifications.ts';
import { AuthorizationError, ValidationError } from '../errors.ts';
import { matcherOf } from '../listing/filters.ts';
import { type ListingPlan, type ListingSource, listingReadMs, listPage } from '../listing/page.ts';
import type { NotificationRecord } from '../model/notification.ts';
import { type FilterField, type NotificationQuery, notificationListSpec } from './list-request.ts';
import type { NotificationField, NotificationPage } from './notification-view.ts';

/**
 * A customer's notifications, a page at a time (`GET /v2/customers/{customer}/notifications`):
 * only the caller's own (another customer's handle is refused before anything is read), by fire
 * date, newest first by default. `acknowledgeDate:null` reads the poll queue's index (the
 * unacknowledged only); anything else reads the customer's listing and checks the filters on what
 * it returns, reading at most maxRead() items per request (a broader request is refused). The
 * generic listing (shared/listing/page.ts) answers: with no filter left, `offset` is skipped by
 * counting (Select COUNT over keys) and `total` is the customer's kept count (one BatchGet of its
 * count shards, shared/db/repositories/notification-counts.ts); else the matches are read in order. `export=true`
 * answers every match in one page, within the same read limit.
 */

/** The most notifications one request reads: `NOTIFICATION_LIST_MAX_READ`, default 20000. */
export function maxRead(): number {
  const value = Number(process.env.NOTIFICATION_LIST_MAX_READ ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}

/** Refuses any customer but the caller's own (the price list's rule). */
export function ownQueue(caller: string, customer: string): void {
  if (customer !== caller) throw new AuthorizationError(`The notifications and webhook of customer '${customer}' are not yours.`);
}

const tooBroad = (max: number) =>
  new ValidationError(
    `This listing would read more than ${max} notifications. Narrow it with acknowledgeDate:null, fireDate filters, or a smaller offset.`,
  );

function fieldValue(n: NotificationRecord, field: FilterField): string | undefined {
  const value = n[field];
  return value === undefined ? undefined : String(value);
}

function selectFields(n: NotificationRecord, fields: readonly NotificationField[] | undefined): Partial<NotificationRecord> {
  if (fields === undefined) return n;
  return Object.fromEntries(fields.filter((f) => n[f] !== undefined).map((f) => [f, n[f]]));
}

/** A customer's notifications of one source, in fire-date order, as the generic listing reads them. */
function notificationSource(customer: string, source: NotificationSource): ListingSource<NotificationRecord> {
  return {
    readPage: async (options) => {
      const page = await readNotificationPage(customer, source, options);
      return { records: page.notifications, read: page.read, ...(page.next ? { next: page.next } : {}) };
    },
    skip: (count, ascending, until) => skipNotifications(customer, source, count, ascending, until),
  };
}

export async function listNotifications(caller: string, customer: string, query: NotificationQuery): Promise<NotificationPage> {
  ownQueue(caller, customer);
  const unacknowledged = query.filters.find((f) => f.field === 'acknowledgeDate' && f.matcher === 'null');
  const source: NotificationSource = unacknowledged ? 'unacknowledged' : 'all';
  const rest = query.filters.filter((f) => f !== unacknowledged);
  const max = maxRead();
  const exact = rest.length === 0 && query.search === undefined;
  const plan: ListingPlan<NotificationRecord> = {
    source: notificationSource(customer, source),
    exact,
    ...(exact
      ? {
          count: async () => {
            const counts = await readNotificationCounts(customer);
            return source === 'all' ? counts.all : counts.unacknowledged;
          },
        }
      : {}),
  };
  return (await listPage(plan, query, {
    matches: matcherOf(notificationListSpec, fieldValue, rest, query.search),
    summaryOf: (n) => n,
    view: (n) => selectFields(n, query.fields),
    maxRead: max,
    maxExport: max,
    tooBroad,
    tooLarge: tooBroad,
    // Reading for matches no index answers stops before the function's budget: a 400, never a 503.
    readFor: listingReadMs(),
    tooSlow: () =>
      new ValidationError(
        'This listing reads more notifications than one request has time for. Narrow it with acknowledgeDate:null (the unacknowledged, answered from an index), a narrower fireDate range, a longer search term, or a smaller offset; or leave the count out with total=false.',
      ),
  })) as NotificationPage;
}

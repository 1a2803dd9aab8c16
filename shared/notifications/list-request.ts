import * as v from 'valibot';
import {
  documented,
  type Filter,
  filterParameter,
  generalParameters,
  type ListQuery,
  type ListSpec,
  type Problem,
  parseListQuery,
  withProblems,
} from '../listing/query.ts';
import { eventTypes, NotificationRecord, notificationTypes, subjectStatuses } from '../model/notification.ts';
import type { NotificationField } from './notification-view.ts';

/**
 * The query of `GET /v2/customers/{customer}/notifications`, as the SDKs send it (the TS SDK's
 * NotificationListParams, the PHP SDK's list): `limit` (0 answers the count only), `offset`,
 * `order`, `fields`, `total` (counted unless `total=false`), `q`, and filters written `field=value`
 * or `field:matcher=value`, each parameter possibly repeated (all filters apply). Anything unknown
 * or malformed is a ConstraintViolationException naming the parameter. It is the generic listing
 * (shared/listing/query.ts) described for notifications, `export=true` included (the PHP SDK's export).
 */

/** Every field of a notification (what `fields` may name): the model's. */
export const notificationFields = Object.keys(NotificationRecord.entries) as NotificationField[];

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

/** The notification listing as the generic listing describes it. */
export const notificationListSpec: ListSpec<FilterField, NotificationField> = {
  noun: 'notifications',
  filters: filterMatchers,
  closedValues: { eventType: eventTypes, notificationType: notificationTypes, subjectStatus: subjectStatuses },
  dates: ['fireDate', 'readDate', 'acknowledgeDate', 'deliveryDate'],
  fields: notificationFields,
  identifying: ['id', 'eventType', 'fireDate', 'acknowledgeDate'],
  // Ids grow with the fire date within a process, and the index is by fire date: the first key decides.
  orders: ['fireDate', 'id'],
  defaultOrder: '-fireDate',
  search: ['message'],
};

export type NotificationFilter = Filter<FilterField>;
/** The listing a caller asked for. */
export type NotificationQuery = ListQuery<FilterField, NotificationField>;

const idValue = /^[1-9][0-9]{0,15}$/;

/** The generic listing's parse, and what notifications add: ids that are positive integers. */
function parseNotificationQuery(query: Record<string, string[] | undefined>, problems: Problem[]): NotificationQuery {
  const parsed = parseListQuery(notificationListSpec, query, problems);
  for (const f of parsed.filters) {
    if (f.field !== 'id' && f.field !== 'process') continue;
    for (const value of f.values) {
      if (!idValue.test(value))
        problems.push({
          parameter: `${f.field}${f.matcher === 'eq' ? '' : `:${f.matcher}`}`,
          message: 'must be a positive integer',
          value,
        });
    }
  }
  return parsed;
}

const general = generalParameters(notificationListSpec);

/** The parameters of the notification listing: the documented ones, and any further (filter) parameter. */
const ListParameters = v.objectWithRest(
  {
    ...general,
    q: documented('Notifications whose message contains this text (case-insensitive).'),
    eventType: filterParameter('eventType', 'TransferDomainEvent'),
    notificationType: filterParameter('notificationType', 'TransferDomainNotification'),
    processIdentifier: filterParameter('processIdentifier', 'example.com'),
    acknowledgeDate: documented(
      `Filter on acknowledgeDate: \`acknowledgeDate=2026-11-21\`; also \`acknowledgeDate:<matcher>=...\`. \`acknowledgeDate:null=\` lists the unacknowledged ones only (from the poll queue's index).`,
    ),
  },
  v.array(v.string()),
);

/** The query of the notification listing, parsed into a NotificationQuery. */
export const NotificationListQuery = v.pipe(
  ListParameters,
  withProblems<v.InferOutput<typeof ListParameters>, NotificationQuery>(parseNotificationQuery),
);

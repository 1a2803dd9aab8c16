import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { transferNotificationExample } from '../../shared/notifications/examples.ts';
import { NotificationPage, NotificationView } from '../../shared/notifications/notification-view.ts';
import { NotificationListRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications in the OpenAPI document. */
export const docs: OperationDocs = {
  request: NotificationListRequest,
  description: [
    "The caller's notifications (docs/notifications.md), newest first: `{entities, pagination: {limit, offset, total}}`. Only the caller's own customer: another handle answers 403.",
    'Paging: `limit` (default 10, at most 100; `limit=0` answers the total only) and `offset` (at most 10000). `order`: `fireDate` oldest first, `-fireDate` newest first. `fields` limits what each entity carries. `pagination.total` is counted unless `total=false`.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`, all applying. Fields: `id`, `process`, `eventType`, `notificationType`, `processType`, `processIdentifier`, `subjectStatus`, `statusDetail`, `message` (like), `fireDate`, `readDate`, `acknowledgeDate`, `deliveryDate` (dates compare as a day or a time; `null`/`not_null`). `acknowledgeDate:null=` lists the unacknowledged ones from the poll queue. `q` finds notifications whose message contains the text.',
    'Cost: never a scan; a request reads at most 20000 notifications, a broader one answers 400 ValidationError.',
  ].join('\n\n'),
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'One page of notifications.',
      content: {
        'application/json': {
          json: NotificationPage,
          examples: { page: { entities: [transferNotificationExample], pagination: { limit: 10, offset: 0, total: 1 } } },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { path: { customer: 'demo' }, query: { 'acknowledgeDate:null': '' } },
  components: { Notification: NotificationView, NotificationPage },
};

import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { transferNotificationExample } from '../../shared/notifications/examples.ts';
import { NotificationView } from '../../shared/notifications/notification-view.ts';
import { NotificationRequest } from './schema.ts';

/** GET /v2/customers/{customer}/notifications/{notificationId} in the OpenAPI document. */
export const docs: OperationDocs = {
  request: NotificationRequest,
  description:
    "A notification of the caller; the first read sets its `readDate`. Its type's own fields sit beside the common ones (a TransferDomainNotification's `domainName`, `transferType`, `requestedDate`, ...; an SSLCertificateNotification's `certificateId`, `product`, `expiryDate`). Another customer's handle answers 403; an unknown id 404.",
  tags: ['Notifications'],
  responses: {
    '200': {
      description: 'The notification, read.',
      content: {
        'application/json': {
          json: NotificationView,
          examples: { transfer: { ...transferNotificationExample, readDate: '2026-11-26T09:05:00Z' } },
        },
      },
    },
  },
  pathObject: true,
  errors: ['ConstraintViolationException', 'ObjectDoesNotExist'],
  examples: { path: { customer: 'demo', notificationId: '1002003' } },
  components: { Notification: NotificationView },
};

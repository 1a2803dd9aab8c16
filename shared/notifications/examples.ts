import type { NotificationView } from './notification-view.ts';

/** A transfer's notification as the API answers it (the OpenAPI document's example). */
export const transferNotificationExample: NotificationView = {
  id: 1002003,
  customer: 'demo',
  fireDate: '2026-11-26T09:00:00Z',
  message: 'The transfer of transfer-wait.com completed.',
  process: 1002,
  processType: 'domain',
  processIdentifier: 'transfer-wait.com',
  eventType: 'TransferDomainEvent',
  notificationType: 'TransferDomainNotification',
  isAsync: true,
  subjectStatus: 'OK',
  statusDetail: 'completed',
  domainName: 'transfer-wait.com',
  transferType: 'IN',
  requestedDate: '2026-11-21T21:03:29Z',
};

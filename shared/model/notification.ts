import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';
import type { CertificateRecord } from './certificate.ts';
import type { ProcessRecord } from './process.ts';
import { type RegistrationStatus, registrationDetailsOf } from './registration.ts';
import { type TransferDetails, type TransferStatus, transferDetailsOf } from './transfer.ts';

/**
 * A customer's notifications (the real API's notification queue: `GET /v2/customers/{customer}/notifications`,
 * `.../poll`, `.../{id}/ack`). One is written in the same transaction as the state change it
 * reports (an outbox: shared/db/repositories/notifications.ts builds its item), so it is never lost
 * and never reports a change that did not happen. docs/notifications.md lists the event types.
 */

/** The event types this service writes, in the real API's naming where it has one. */
export const eventTypes = [
  'TransferDomainEvent',
  'RequestCertificateEvent',
  'DcvRecordsAddedEvent',
  'DcvRecordsRemovedEvent',
  'DnsZoneRefusedEvent',
  'AcmeOrderFailedEvent',
  'UpdateDomainEvent',
  'DnsZoneKeyRolloverEvent',
  'CreateDomainEvent',
  'RenewDomainEvent',
  'DeleteDomainEvent',
  'RestoreDomainEvent',
  'DomainExpiryReportEvent',
  'DnsZoneRetrieveFailedEvent',
  'DnsZonePremiumRenewedEvent',
  'DnsZonePremiumEndedEvent',
] as const;
export type EventType = (typeof eventTypes)[number];

/** The notification types (the class each SDK reads a notification into). */
export const notificationTypes = [
  'TransferDomainNotification',
  'SSLCertificateNotification',
  'DomainZoneNotification',
  'UpdateDomainNotification',
  'CreateDomainNotification',
  'RenewDomainNotification',
  'DeleteDomainNotification',
  'DomainNotification',
  'DomainExpiryReportNotification',
] as const;
export type NotificationType = (typeof notificationTypes)[number];

/**
 * The state of the subject a notification reports: the TS SDK's `SubjectStatuses`, so a typed client
 * can match every value (the PHP SDK takes any string). A cancelled subject is FAILED, its
 * `statusDetail` saying `cancelled` / `CANCELLED` (docs/notifications.md maps every process status).
 */
export const subjectStatuses = ['NEW', 'OK', 'COMPLETED', 'PENDING', 'WARNING', 'FAILED', 'PREMIUM-CHANGE'] as const;
export type SubjectStatus = (typeof subjectStatuses)[number];

/**
 * A stored subject status: one of the above, or `CANCELLED`, which notifications written before
 * cancellations reported FAILED carry in the table; it is read as FAILED.
 */
const StoredSubjectStatus = v.union([
  v.picklist(subjectStatuses),
  v.pipe(
    v.literal('CANCELLED'),
    v.transform((): SubjectStatus => 'FAILED'),
  ),
]);

const Positive = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A notification as stored (and, read dates and all, as answered: shared/notifications/notification-view.ts derives the view from it). */
export const NotificationRecord = v.object({
  id: Positive,
  customer: Handle,
  fireDate: WireTime,
  readDate: v.optional(v.pipe(WireTime, v.description('When it was first read (GET of the notification, or its ack).'))),
  acknowledgeDate: v.optional(WireTime),
  deliveryDate: v.optional(v.pipe(WireTime, v.description("When the customer's webhook first answered 2xx for it."))),
  message: v.string(),
  reason: v.optional(v.string()),
  process: v.optional(Positive),
  processType: v.optional(v.string()),
  processIdentifier: v.optional(v.string()),
  eventType: v.picklist(eventTypes),
  notificationType: v.picklist(notificationTypes),
  /** Always true here: every notification reports the outcome of asynchronous work. */
  isAsync: v.boolean(),
  subjectStatus: v.optional(StoredSubjectStatus),
  /** The subject's own status (a transfer's status, SSL_REQUIRES_ATTENTION, ...). */
  statusDetail: v.optional(v.string()),
  /** TransferDomainNotification's own fields. */
  domainName: v.optional(v.string()),
  transferType: v.optional(v.string()),
  requestedDate: v.optional(WireTime),
  actionDate: v.optional(WireTime),
  expiryDate: v.optional(WireTime),
  /** DomainExpiryReportNotification's own fields: the window the report covers (now to the expiry). */
  startDate: v.optional(WireTime),
  endDate: v.optional(WireTime),
  /** SSLCertificateNotification's own fields. */
  certificateId: v.optional(Positive),
  product: v.optional(v.string()),
  /** Event details that have no field of their own (the DCV records added to or removed from a zone). */
  payload: v.optional(v.record(v.string(), v.unknown())),
});
export type NotificationRecord = v.InferOutput<typeof NotificationRecord>;

/**
 * Notification ids: `process id * 1000 + slot`, so the same state change always yields the same id
 * (a retried transaction writes the same notification, never a second one) and a process's
 * notifications are numbered in the order they happen. A transfer's slot is its version (bumped on
 * every move; a transfer moves a few dozen times at most); a certificate request's events have
 * fixed slots from 900.
 */
export const slotsPerProcess = 1000;
const certificateSlots = { requested: 900, dcvAdded: 901, issued: 902, cancelled: 903, dcvRemoved: 904, refused: 905 } as const;
/** A failed ACME order's slot: one per failure from 910, the 89th and later sharing the last. */
const orderFailedSlots = { first: 910, last: 998 } as const;

/**
 * A zone's notifications have no process: their ids are `zoneNotificationBase + zone id * 10,000 +
 * revision % 10,000`, above every process's (process ids stay below 9 * 10^11) and within the 15
 * digits a notification id may have in a path. The same refusal of the same revision always has
 * the same id.
 */
const zoneNotificationBase = 900_000_000_000_000;
const revisionsPerZone = 10_000;

export function zoneNotificationId(zoneId: number, revision: number): number {
  if (!Number.isInteger(zoneId) || zoneId < 1 || zoneId >= 10_000_000_000) throw new Error(`Zone id ${zoneId} is out of range`);
  return zoneNotificationBase + zoneId * revisionsPerZone + (revision % revisionsPerZone);
}

export function notificationId(processId: number, slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot >= slotsPerProcess) throw new Error(`Notification slot ${slot} is out of range`);
  return processId * slotsPerProcess + slot;
}

/** The subject status a transfer status reports. */
function transferSubjectStatus(status: TransferStatus): SubjectStatus {
  if (status === 'completed') return 'OK';
  if (status === 'rejected' || status === 'failed' || status === 'cancelled') return 'FAILED';
  return 'PENDING';
}

const transferMessages: Readonly<Record<TransferStatus, string>> = {
  pendingwhois: 'waits for the registrant to be confirmed',
  pendingfoa: 'waits for the registrant to approve it (FOA)',
  pendingvalidation: 'waits for validation',
  pending: 'waits for the losing registrar',
  approved: 'was approved and will complete shortly',
  cancelled: 'was cancelled',
  rejected: 'was rejected',
  failed: 'failed',
  completed: 'completed',
};

/** Common fields of a notification about a process. */
function aboutProcess(process: ProcessRecord, slot: number, fireDate: string) {
  return {
    id: notificationId(process.id, slot),
    customer: process.customer,
    fireDate,
    process: process.id,
    processType: process.type,
    processIdentifier: process.identifier,
    isAsync: true,
  };
}

/**
 * The notification of a transfer's move, when its status changed (`previous` undefined: the
 * transfer was just requested); undefined for a move that kept the status (an FOA resent).
 */
export function transferNotification(process: ProcessRecord, previous: TransferStatus | undefined): NotificationRecord | undefined {
  const d: TransferDetails = transferDetailsOf(process);
  if (previous === d.status) return undefined;
  return {
    ...aboutProcess(process, d.version, process.updatedDate),
    eventType: 'TransferDomainEvent',
    notificationType: 'TransferDomainNotification',
    message: `The transfer of ${d.domainName} ${transferMessages[d.status]}.`,
    ...(d.reason !== undefined && d.status !== 'completed' ? { reason: d.reason } : {}),
    subjectStatus: transferSubjectStatus(d.status),
    statusDetail: d.status,
    domainName: d.domainName,
    transferType: d.type,
    requestedDate: d.requestedDate,
    ...(d.actionDate !== undefined && !['cancelled', 'rejected', 'failed', 'completed'].includes(d.status)
      ? { actionDate: d.actionDate }
      : {}),
    ...(d.expiryDate !== undefined ? { expiryDate: d.expiryDate } : {}),
  };
}

/** What a certificate request's notification is about: the process (id, customer, type, identifier). */
export type CertificateSubject = Pick<ProcessRecord, 'id' | 'customer' | 'type' | 'identifier'>;

/** A certificate request was opened and waits for domain control validation (it needs the customer's attention). */
export function certificateRequested(process: ProcessRecord, product: string | undefined): NotificationRecord {
  return {
    ...aboutProcess(process, certificateSlots.requested, process.createdDate),
    eventType: 'RequestCertificateEvent',
    notificationType: 'SSLCertificateNotification',
    message: `The certificate request for ${process.identifier} waits for domain control validation.`,
    subjectStatus: 'PENDING',
    statusDetail: 'SSL_REQUIRES_ATTENTION',
    ...(product !== undefined ? { product } : {}),
  };
}

/** A certificate request was issued. */
export function certificateIssued(process: CertificateSubject, certificate: CertificateRecord, at: string): NotificationRecord {
  return {
    ...aboutProcess(process as ProcessRecord, certificateSlots.issued, at),
    eventType: 'RequestCertificateEvent',
    notificationType: 'SSLCertificateNotification',
    message: `The certificate for ${certificate.commonName} was issued.`,
    subjectStatus: 'OK',
    statusDetail: 'COMPLETED',
    certificateId: certificate.id,
    product: certificate.product,
    expiryDate: certificate.expiryDate,
  };
}

/** A certificate request was cancelled. */
export function certificateCancelled(process: CertificateSubject, at: string): NotificationRecord {
  return {
    ...aboutProcess(process as ProcessRecord, certificateSlots.cancelled, at),
    eventType: 'RequestCertificateEvent',
    notificationType: 'SSLCertificateNotification',
    message: `The certificate request for ${process.identifier} was cancelled.`,
    subjectStatus: 'FAILED',
    statusDetail: 'CANCELLED',
  };
}

/** DCV records a certificate request added to (or removed from) the customer's managed zones. */
export function dcvRecordsChanged(
  process: CertificateSubject,
  change: 'added' | 'removed',
  records: readonly { zone: string; name: string; type: string; content: string }[],
  at: string,
): NotificationRecord {
  const zones = [...new Set(records.map((r) => r.zone))];
  return {
    ...aboutProcess(process as ProcessRecord, change === 'added' ? certificateSlots.dcvAdded : certificateSlots.dcvRemoved, at),
    eventType: change === 'added' ? 'DcvRecordsAddedEvent' : 'DcvRecordsRemovedEvent',
    notificationType: 'DomainZoneNotification',
    message: `${records.length} DCV record${records.length === 1 ? '' : 's'} ${change === 'added' ? 'added to' : 'removed from'} ${zones.join(', ')}.`,
    subjectStatus: change === 'added' ? 'PENDING' : 'OK',
    payload: { zones, records: records.map((r) => ({ ...r })) },
  };
}

/** A revision of a managed zone the DNS provider refused: it keeps serving the revision before, until a change it takes. */
export function zoneRefused(
  zone: { id: number; customer: string; domainName: string },
  revision: number,
  provider: string,
  reason: string,
  at: string,
): NotificationRecord {
  return {
    id: zoneNotificationId(zone.id, revision),
    customer: zone.customer,
    fireDate: at,
    isAsync: true,
    eventType: 'DnsZoneRefusedEvent',
    notificationType: 'DomainZoneNotification',
    message: `The DNS provider refused revision ${revision} of the zone ${zone.domainName}; it serves the zone as it was before that change.`,
    reason,
    domainName: zone.domainName,
    subjectStatus: 'FAILED',
    statusDetail: 'refused',
    payload: { zone: zone.domainName, revision, provider },
  };
}

/** A failed retrieve's slot under the number it draws from the process id counter (no process is made). */
const retrieveFailedSlot = 0;

/**
 * A zone's retrieve from its hidden master failed (`POST /v2/dns/zones/{id}/retrieve`): the zone
 * keeps its records. `number` is drawn from the process id counter, so each failure has an id of its own.
 */
export function zoneRetrieveFailed(
  zone: { id: number; customer: string; domainName: string },
  master: string,
  number: number,
  reason: string,
  at: string,
): NotificationRecord {
  return {
    id: notificationId(number, retrieveFailedSlot),
    customer: zone.customer,
    fireDate: at,
    isAsync: false,
    eventType: 'DnsZoneRetrieveFailedEvent',
    notificationType: 'DomainZoneNotification',
    message: `The zone ${zone.domainName} could not be retrieved from its master ${master}; it keeps its records.`,
    reason,
    domainName: zone.domainName,
    subjectStatus: 'FAILED',
    statusDetail: 'retrieveFailed',
    payload: { zone: zone.domainName, master },
  };
}

/** The one notification of a PREMIUM zone's yearly charge, or of its end (each a process of its own). */
const premiumYearSlot = 1;

/** A PREMIUM zone's next year was charged (`dns_premium`, the expiry job): paid until `paidUntil`. */
export function zonePremiumRenewed(process: ProcessRecord, paidUntil: string): NotificationRecord {
  return {
    ...aboutProcess(process, premiumYearSlot, process.updatedDate),
    eventType: 'DnsZonePremiumRenewedEvent',
    notificationType: 'DomainZoneNotification',
    message: `The PREMIUM zone ${process.identifier} was charged for its next year; it is paid until ${paidUntil}.`,
    domainName: process.identifier,
    subjectStatus: 'OK',
    statusDetail: 'COMPLETED',
    payload: { zone: process.identifier, paidUntil },
  };
}

/** A PREMIUM zone's year could not be charged (`reason`): the zone is BASIC from now on, its records kept. */
export function zonePremiumEnded(process: ProcessRecord, paidUntil: string, reason: string): NotificationRecord {
  return {
    ...aboutProcess(process, premiumYearSlot, process.updatedDate),
    eventType: 'DnsZonePremiumEndedEvent',
    notificationType: 'DomainZoneNotification',
    message: `The PREMIUM zone ${process.identifier} could not be charged for its next year (paid until ${paidUntil}): it is a BASIC zone now, its records kept.`,
    reason,
    domainName: process.identifier,
    subjectStatus: 'FAILED',
    statusDetail: 'premiumEnded',
    payload: { zone: process.identifier, paidUntil },
  };
}

/** A key rollover's notification slot (its process's notification id: process id * 1000 + slot). */
const keyRolloverSlots = { waitingForDs: 1 } as const;

/**
 * A zone's key rollover waits for the parent's DS: the new key is served beside the old one, and
 * `ds` are the DS records of the zone's keys now (the new key's among them). The rollover's
 * process `processId` completes with `POST /v2/processes/{id}/ack-ds-update`, which retires the old key.
 */
export function keyRolloverWaitingForDs(
  zone: { customer: string; domainName: string },
  processId: number,
  ds: readonly string[],
  dnskeys: readonly string[],
  at: string,
): NotificationRecord {
  return {
    id: notificationId(processId, keyRolloverSlots.waitingForDs),
    customer: zone.customer,
    fireDate: at,
    process: processId,
    processType: 'dnsZone',
    processIdentifier: zone.domainName,
    isAsync: true,
    eventType: 'DnsZoneKeyRolloverEvent',
    notificationType: 'DomainZoneNotification',
    message: `The new signing key of the zone ${zone.domainName} is served beside the old one: publish its DS at the parent, then acknowledge with POST /v2/processes/${processId}/ack-ds-update to retire the old key.`,
    domainName: zone.domainName,
    subjectStatus: 'PENDING',
    statusDetail: 'WAITING_FOR_DS',
    payload: { zone: zone.domainName, ds: [...ds], dnskeys: [...dnskeys] },
  };
}

/**
 * An order at the ACME CA failed (its validation was refused): the request stays open, its entry
 * needs attention, and a new order is placed after the back-off. `failures`: the request's failed
 * orders so far (each gets a notification of its own).
 */
export function acmeOrderFailed(process: CertificateSubject, failures: number, problem: string, at: string): NotificationRecord {
  const slot = Math.min(orderFailedSlots.first + Math.max(failures, 1) - 1, orderFailedSlots.last);
  return {
    ...aboutProcess(process as ProcessRecord, slot, at),
    eventType: 'AcmeOrderFailedEvent',
    notificationType: 'SSLCertificateNotification',
    message: `The certificate authority failed the order for ${process.identifier}; a new order is placed after a back-off.`,
    reason: problem,
    subjectStatus: 'PENDING',
    statusDetail: 'SSL_REQUIRES_ATTENTION',
  };
}

/** The CA refused to issue at the finalization of a request's order (badCSR, rejectedIdentifier, ...): the order ends, and the customer must act. */
export function acmeOrderRefused(process: CertificateSubject, problem: string, at: string): NotificationRecord {
  return {
    ...aboutProcess(process as ProcessRecord, certificateSlots.refused, at),
    eventType: 'AcmeOrderFailedEvent',
    notificationType: 'SSLCertificateNotification',
    message: `The certificate authority refused to issue the certificate for ${process.identifier}; cancel the request and renew with a corrected request.`,
    reason: problem,
    subjectStatus: 'PENDING',
    statusDetail: 'SSL_REQUIRES_ATTENTION',
  };
}

/** A domain update's one notification: its slot. */
const updateSlot = 1;

/** A domain was changed (POST /v2/domains/{domainName}/update): which fields, in `payload.fields`. */
export function domainUpdated(process: ProcessRecord, fields: readonly string[]): NotificationRecord {
  return {
    ...aboutProcess(process, updateSlot, process.updatedDate),
    eventType: 'UpdateDomainEvent',
    notificationType: 'UpdateDomainNotification',
    message: `The domain ${process.identifier} was updated.`,
    subjectStatus: 'OK',
    statusDetail: 'COMPLETED',
    domainName: process.identifier,
    payload: { fields: [...fields] },
  };
}

/**
 * How long a notification is kept (docs/notifications.md, "Retention"): the table's TTL deletes it
 * `unacknowledgedDays` after it fired while it waits unacknowledged, and `acknowledgedDays` after
 * it was acknowledged. DynamoDB deletes an expired item within a few days of its time; until then
 * it is listed and counted as before.
 */
export const notificationRetention = { unacknowledgedDays: 180, acknowledgedDays: 30 } as const;

const dayMs = 86_400_000;

/** When (epoch seconds, the table's `expiresAt`) a notification fired at `fireDate` expires while unacknowledged. */
export function unacknowledgedExpiry(fireDate: string): number {
  return Math.floor((Date.parse(fireDate) + notificationRetention.unacknowledgedDays * dayMs) / 1000);
}

/** When (epoch seconds) a notification acknowledged at `acknowledgeDate` expires. */
export function acknowledgedExpiry(acknowledgeDate: string): number {
  return Math.floor((Date.parse(acknowledgeDate) + notificationRetention.acknowledgedDays * dayMs) / 1000);
}

const registrationMessages: Readonly<Record<RegistrationStatus, string>> = {
  pending: 'is pending at the registry',
  completed: 'completed',
  failed: 'failed',
};

/**
 * The notification of a registration's move (`previous` undefined: just requested): PENDING while
 * the registry works on it, OK with `expiryDate` (and `payload.createdDate`) once registered, FAILED
 * with the registry's reason. Its slot is the registration's version.
 */
export function registrationNotification(process: ProcessRecord, previous: RegistrationStatus | undefined): NotificationRecord | undefined {
  const d = registrationDetailsOf(process);
  if (previous === d.status) return undefined;
  return {
    ...aboutProcess(process, d.version, process.updatedDate),
    eventType: 'CreateDomainEvent',
    notificationType: 'CreateDomainNotification',
    message: `The registration of ${d.domainName} ${registrationMessages[d.status]}.`,
    ...(d.reason !== undefined && d.status === 'failed' ? { reason: d.reason } : {}),
    subjectStatus: d.status === 'completed' ? 'OK' : d.status === 'failed' ? 'FAILED' : 'PENDING',
    statusDetail: d.status,
    domainName: d.domainName,
    requestedDate: d.requestedDate,
    ...(d.status === 'pending' && d.actionDate !== undefined ? { actionDate: d.actionDate } : {}),
    ...(d.expiryDate !== undefined ? { expiryDate: d.expiryDate, payload: { createdDate: process.updatedDate } } : {}),
  };
}

/** The one notification of a domain's renewal, deletion, restore or expiry step: its slot (each such step is a process of its own). */
const lifecycleSlot = 1;

/** A domain was renewed (by its owner, or by auto-renew at expiry): its new expiry. */
export function domainRenewed(process: ProcessRecord, expiryDate: string, auto: boolean): NotificationRecord {
  return {
    ...aboutProcess(process, lifecycleSlot, process.updatedDate),
    eventType: 'RenewDomainEvent',
    notificationType: 'RenewDomainNotification',
    message: `The domain ${process.identifier} was ${auto ? 'renewed automatically at its expiry' : 'renewed'} until ${expiryDate}.`,
    subjectStatus: 'OK',
    statusDetail: 'COMPLETED',
    domainName: process.identifier,
    expiryDate,
  };
}

/** A domain entered its redemption period (deleted, or not renewed after its grace): restorable until `until`. */
export function domainInRedemption(process: ProcessRecord, until: string, why: 'deleted' | 'expired'): NotificationRecord {
  return {
    ...aboutProcess(process, lifecycleSlot, process.updatedDate),
    eventType: 'DeleteDomainEvent',
    notificationType: 'DeleteDomainNotification',
    message:
      why === 'deleted'
        ? `The domain ${process.identifier} was deleted: it is in its redemption period and can be restored until ${until}.`
        : `The domain ${process.identifier} was not renewed: it was deleted at the registry and can be restored until ${until}.`,
    subjectStatus: 'WARNING',
    statusDetail: 'REDEMPTION_PERIOD',
    domainName: process.identifier,
    actionDate: until,
  };
}

/** A domain's redemption period ended: it is gone and its name is free. */
export function domainPurged(process: ProcessRecord): NotificationRecord {
  return {
    ...aboutProcess(process, lifecycleSlot, process.updatedDate),
    eventType: 'DeleteDomainEvent',
    notificationType: 'DeleteDomainNotification',
    message: `The redemption period of ${process.identifier} ended: the domain is gone and its name is free.`,
    subjectStatus: 'COMPLETED',
    statusDetail: 'DELETED',
    domainName: process.identifier,
  };
}

/** A domain was restored from its redemption period. */
export function domainRestored(process: ProcessRecord, expiryDate: string): NotificationRecord {
  return {
    ...aboutProcess(process, lifecycleSlot, process.updatedDate),
    eventType: 'RestoreDomainEvent',
    notificationType: 'DomainNotification',
    message: `The domain ${process.identifier} was restored; it expires ${expiryDate}.`,
    subjectStatus: 'OK',
    statusDetail: 'COMPLETED',
    domainName: process.identifier,
    expiryDate,
  };
}

/** A domain will expire in `days` days (an expiry notice), or has expired (`days` 0, not renewed). */
export function domainExpiryReport(
  process: ProcessRecord,
  expiryDate: string,
  days: number,
  autoRenew: boolean,
  graceUntil?: string,
): NotificationRecord {
  const name = process.identifier;
  const message =
    days > 0
      ? `The domain ${name} expires in ${days} days (${expiryDate})${autoRenew ? ' and will be renewed automatically' : ': renew it to keep it'}.`
      : `The domain ${name} expired on ${expiryDate} and was not renewed${process.details?.reason ? ` (${String(process.details.reason)})` : ''}: renew it before ${graceUntil ?? expiryDate} or it will be deleted.`;
  return {
    ...aboutProcess(process, lifecycleSlot, process.updatedDate),
    eventType: 'DomainExpiryReportEvent',
    notificationType: 'DomainExpiryReportNotification',
    message,
    subjectStatus: days > 0 ? 'NEW' : 'WARNING',
    statusDetail: days > 0 ? 'EXPIRY_NOTICE' : 'EXPIRED',
    domainName: name,
    expiryDate,
    startDate: process.updatedDate,
    endDate: days > 0 ? expiryDate : (graceUntil ?? expiryDate),
  };
}

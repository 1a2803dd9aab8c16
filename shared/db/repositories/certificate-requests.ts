import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CertificateRecord } from '../../model/certificate.ts';
import {
  certificateCancelled,
  certificateIssued,
  certificateRequested,
  dcvRecordsChanged,
  type NotificationRecord,
} from '../../model/notification.ts';
import type { Amounts, ProcessRecord } from '../../model/process.ts';
import type { ZoneRecordEntry } from '../../model/zone.ts';
import { db } from '../client.ts';
import { readItems } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import {
  cancellationCodes,
  conditionalUpdate,
  counterKey,
  counterValue,
  putNew,
  type TransactItem,
  transactWithIds,
} from '../transactions.ts';
import { certificateItem, openRequestItem } from './certificates.ts';
import { type Commitment, itemsOf } from './commit-with.ts';
import { notificationWrites } from './notifications.ts';
import { countedOf } from './process-counts.ts';
import { changedProcessItems, detailStatusUpdate, newProcessItems, processItem } from './processes.ts';
import { appendDcvRecordsItem, removeDcvRecordsItems, type ZoneRecordRef } from './zone-writes.ts';
import { parseZoneHead, type ZoneHead } from './zones.ts';

/**
 * The reads and writes of a certificate request's life: a renewal opens it (or issues at once),
 * the DCV check and the validation manager record its validations, and issuing completes it. A
 * request still validating has an open-request marker (certificates.ts) the DCV check lists.
 */

/** The ids a renewal's transaction claims: its process, and the certificate when issued at once. */
export interface RenewalIds {
  process: number;
  certificate?: number;
}

/** What a renewal writes for its ids: the process, and the certificate when it was issued at once. */
export interface RenewalRecords {
  process: ProcessRecord;
  issued?: CertificateRecord;
}

/** What a renewal reads once the certificate is known to be the caller's and the request keeps its product's rules. */
export interface RenewalReads {
  /** The id sequences as read (ids are claimed in the renewal's transaction). */
  counters: { process: number; certificate: number };
  /** The zone headers of the names asked for that exist, whoever holds them (the caller checks the customer). */
  zones: ZoneHead[];
}

/** The id counters and the zone headers that may serve the request's names, in one BatchGet. */
export async function readForRenewal(zoneNames: readonly string[]): Promise<RenewalReads> {
  const named: Record<string, { pk: string; sk: string }> = {
    processCounter: counterKey('process'),
    certificateCounter: counterKey('certificate'),
  };
  zoneNames.forEach((name, i) => {
    named[`zone${i}`] = keys.zoneByName(name);
  });
  const items = await readItems(named);
  const zones = zoneNames
    .map((_, i) => items[`zone${i}`])
    .filter((item) => item !== undefined)
    .map(parseZoneHead);
  return { counters: { process: counterValue(items.processCounter), certificate: counterValue(items.certificateCounter) }, zones };
}

/** A renewal to record: the certificate renewed and its holder, the id counters as read, the DCV records per zone. */
export interface Renewal {
  certificateId: number;
  customer: string;
  counters: { process: number; certificate: number };
  /** Whether the certificate is issued at once (a certificate id is claimed too). */
  issuesAtOnce: boolean;
  /** The DCV records to add to the customer's managed zones, per zone. */
  dcvRecords: [zone: string, records: ZoneRecordEntry[]][];
  /** The wire time of the renewal. */
  at: string;
}

/**
 * Records a renewal in one transaction that claims its ids (db/transactions.ts): the renewed
 * certificate is linked to the process (or to its successor when issued at once) under the
 * condition that it is still the customer's, active, and neither renewing nor renewed; the
 * process; the successor or the open-request marker; the DCV records; and what `commitWith` adds
 * for the ids (commit-with.ts). Undefined when the certificate's condition failed: one renewal at
 * a time.
 */
export async function recordRenewal(
  renewal: Renewal,
  records: (ids: RenewalIds) => RenewalRecords,
  commitWith?: (ids: RenewalIds) => Commitment | Promise<Commitment>,
): Promise<RenewalIds | undefined> {
  const items = async (ids: RenewalIds) => [...renewalItems(renewal, records(ids)), ...itemsOf(await commitWith?.(ids))];
  const { process, certificate } = renewal.counters;
  try {
    return renewal.issuesAtOnce ? await transactWithIds({ process, certificate }, items) : await transactWithIds({ process }, items);
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return undefined;
    throw error;
  }
}

function renewalItems(renewal: Renewal, { process, issued }: RenewalRecords): TransactItem[] {
  const table = tableName();
  const dcvAdded = renewal.dcvRecords.flatMap(([zone, entries]) =>
    entries.map((e) => ({ zone, name: e.name, type: e.type, content: e.content })),
  );
  // The outbox: issued at once, or waiting for DCV (with the records it added to the customer's zones).
  const notified = issued
    ? notificationWrites(certificateIssued(process, issued, renewal.at))
    : notificationWrites(
        certificateRequested(process, undefined),
        dcvAdded.length > 0 ? dcvRecordsChanged(process, 'added', dcvAdded, renewal.at) : undefined,
      );
  return [
    {
      Update: {
        TableName: table,
        Key: keys.certificateById(renewal.certificateId),
        UpdateExpression: issued ? 'SET renewedBy = :link, updatedDate = :now' : 'SET renewalProcessId = :link, updatedDate = :now',
        ConditionExpression:
          'customer = :customer AND #status = :active AND attribute_not_exists(renewalProcessId) AND attribute_not_exists(renewedBy)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':link': issued ? issued.id : process.id,
          ':now': renewal.at,
          ':customer': renewal.customer,
          ':active': 'ACTIVE',
        },
      },
    },
    putNew(processItem(process)),
    issued ? putNew(certificateItem(issued)) : { Put: { TableName: table, Item: openRequestItem(process.id) } },
    ...renewal.dcvRecords.map(([zone, entries]) => appendDcvRecordsItem(zone, renewal.customer, entries, renewal.at)),
    ...newProcessItems(process),
    ...notified,
  ];
}

/** Removes the open-request marker of a process that is gone or finished (its own transaction, like every marker write). */
export async function closeOpenRequest(processId: number): Promise<void> {
  await db().send(
    new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: tableName(), Key: keys.openCertificateRequest(processId) } }] }),
  );
}

/**
 * Records a withdrawal at the authority that did not go through yet on a cancelled process: the
 * order as it now stands (its failures and when it is tried again) and a note, unless the process
 * changed since it was read. False when it had.
 */
export async function recordWithdrawalAttempt(
  process: ProcessRecord,
  attempt: { order: object; note?: { createdDate: string; type: 'INCOMING'; message: string }; at: string },
): Promise<boolean> {
  const sets = ['details.#order = :order', 'updatedDate = :now'];
  if (attempt.note !== undefined) sets.push('details.notes = list_append(details.notes, :note)');
  return conditionalUpdate({
    TableName: tableName(),
    Key: keys.processById(process.id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: 'updatedDate = :was AND #status = :cancelled',
    ExpressionAttributeNames: { '#order': 'order', '#status': 'status' },
    ExpressionAttributeValues: {
      ':order': attempt.order,
      ':now': attempt.at,
      ':was': process.updatedDate,
      ':cancelled': 'CANCELLED',
      ...(attempt.note !== undefined ? { ':note': [attempt.note] } : {}),
    },
  });
}

/** The condition that the process is as it was read: unchanged since `updatedDate`, and with `whileRunning` still RUNNING. */
function unchanged(process: Pick<ProcessRecord, 'updatedDate'>, whileRunning: boolean) {
  return whileRunning
    ? {
        ConditionExpression: 'updatedDate = :was AND #status = :running',
        ExpressionAttributeNames: { '#status': 'status' },
        values: { ':was': process.updatedDate, ':running': 'RUNNING' },
      }
    : { ConditionExpression: 'updatedDate = :was', values: { ':was': process.updatedDate } };
}

/**
 * Stores a request's new validation state, unless the process changed since it was read (and,
 * with `whileRunning`, unless it stopped running). False when it had: someone else moved first.
 */
export async function recordValidations(process: ProcessRecord, validations: object, at: string, whileRunning: boolean): Promise<boolean> {
  const { values, ...condition } = unchanged(process, whileRunning);
  const after: ProcessRecord = { ...process, details: { ...process.details, validations } };
  const detail = detailStatusUpdate(after);
  const update = {
    TableName: tableName(),
    Key: keys.processById(process.id),
    UpdateExpression: `SET details.validations = :validations, updatedDate = :now, ${detail.set}`,
    ...condition,
    ExpressionAttributeValues: { ':validations': validations, ':now': at, ...detail.values, ...values },
  };
  // A change of whether the request needs attention moves its counts: then one transaction.
  const counts = changedProcessItems(countedOf(process), after);
  try {
    if (counts.length === 0) await db().send(new UpdateCommand(update));
    else await db().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...counts] }));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** One step with the authority, as the DCV job records it. */
export interface AuthorityStepRecord {
  validations: object;
  /** The order at the authority after the step; undefined: none (the sandbox authority). */
  order?: object;
  /** A note from the authority (INCOMING), appended. */
  note?: object;
  /** The step count as read (undefined: none recorded yet); the write makes it one more. */
  steps: number | undefined;
  at: string;
  /** The customer's notification of what the step found, written with it (the outbox). */
  notification?: NotificationRecord;
}

/**
 * Records one step with the authority on a running request: its validations, its order and a
 * note, unless the process changed since it was read or another run recorded a step meanwhile
 * (the step count moved). False then: someone else moved first, and this step is not recorded.
 */
export async function recordAuthorityStep(process: ProcessRecord, step: AuthorityStepRecord): Promise<boolean> {
  const { values, ...condition } = unchanged(process, true);
  const counted = step.steps === undefined ? 'attribute_not_exists(details.steps)' : 'details.steps = :steps';
  const detail = detailStatusUpdate({ ...process, status: 'RUNNING', details: { ...process.details, validations: step.validations } });
  const sets = ['details.validations = :validations', 'updatedDate = :now', 'details.steps = :next', detail.set];
  if (step.order !== undefined) sets.push('details.#order = :order');
  if (step.note !== undefined) sets.push('details.notes = list_append(details.notes, :note)');
  const update = {
    TableName: tableName(),
    Key: keys.processById(process.id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: `${condition.ConditionExpression} AND ${counted}`,
    ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, ...(step.order !== undefined ? { '#order': 'order' } : {}) },
    ExpressionAttributeValues: {
      ':validations': step.validations,
      ':now': step.at,
      ':next': (step.steps ?? 0) + 1,
      ...detail.values,
      ...(step.steps !== undefined ? { ':steps': step.steps } : {}),
      ...(step.order !== undefined ? { ':order': step.order } : {}),
      ...(step.note !== undefined ? { ':note': [step.note] } : {}),
      ...values,
    },
  };
  return conditionalUpdate(update, notificationWrites(step.notification));
}

/**
 * Issues a validated request in one transaction: the running process, unchanged since it was
 * read, completes with its validations and the certificate's id; the certificate is written; the
 * open-request marker goes; a renewed certificate (`renews`) drops its open renewal for its
 * successor. False when a condition failed: another run got there first.
 */
export async function issueCertificate(
  process: ProcessRecord,
  validations: object,
  certificate: CertificateRecord,
  renews: number | undefined,
  at: string,
): Promise<boolean> {
  const table = tableName();
  const { values, ...condition } = unchanged(process, true);
  const after: ProcessRecord = { ...process, status: 'COMPLETED', details: { ...process.details, validations } };
  const detail = detailStatusUpdate(after);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: keys.processById(process.id),
        UpdateExpression: `SET details.validations = :validations, details.issuedCertificateId = :id, #status = :completed, gsi2pk = :listing, updatedDate = :now, ${detail.set}`,
        ...condition,
        ExpressionAttributeValues: {
          ...detail.values,
          ':validations': validations,
          ':id': certificate.id,
          ':completed': 'COMPLETED',
          ':listing': keys.processStatusListing(process.id, certificate.customer, 'COMPLETED').gsi2pk,
          ':now': at,
          ...values,
        },
      },
    },
    putNew(certificateItem(certificate)),
    { Delete: { TableName: table, Key: keys.openCertificateRequest(process.id), ConditionExpression: 'attribute_exists(pk)' } },
  ];
  if (renews !== undefined) {
    items.push({
      Update: {
        TableName: table,
        Key: keys.certificateById(renews),
        UpdateExpression: 'REMOVE renewalProcessId SET renewedBy = :id, updatedDate = :now',
        ConditionExpression: 'renewalProcessId = :pid',
        ExpressionAttributeValues: { ':id': certificate.id, ':now': at, ':pid': process.id },
      },
    });
  }
  items.push(...changedProcessItems(countedOf(process), after));
  const subject = { id: process.id, customer: certificate.customer, type: 'certificate', identifier: certificate.commonName };
  items.push(...notificationWrites(certificateIssued(subject, certificate, at)));
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.includes('ConditionalCheckFailed')) return false;
    throw error;
  }
}

/** A certificate request to cancel: the process as read, the certificate it renews, what it refunds, its note, the time. */
export interface CertificateCancel {
  /** The process as read (its counts move from what it counted as then). */
  process: ProcessRecord;
  /** The certificate the request renews (its open renewal is dropped), if any. */
  renews?: number;
  refund?: Amounts;
  note: object;
  at: string;
  /** The DCV records the request added; each leaves its zone in the same transaction (read first: zone-writes.ts), while the zone still holds it. */
  dcvRecords: readonly ZoneRecordRef[];
  /** What commits with the cancellation (commit-with.ts), after the zones' items. */
  commitment?: Commitment;
  /** The authority withdraws the request afterwards (an ACME order): the open-request marker stays for the DCV job. */
  withdrawLater?: boolean;
}

/**
 * Cancels a running certificate request in one transaction: the process becomes CANCELLED (with
 * its refund and a note) while it is still RUNNING, the open-request marker goes (so the DCV check
 * no longer looks at it; with `withdrawLater` it stays, and the DCV check withdraws the request at
 * the authority and then removes it), the renewed certificate drops its open renewal, and the DCV records the
 * request added leave the zones. `'raced'` when the process had stopped running (the DCV check
 * issued it, or another cancel came first); `'zone-changed'` when a zone changed between its read
 * and the transaction (call again: each call reads the zones anew). Nothing is written then.
 */
export async function recordCertificateCancel(c: CertificateCancel): Promise<'cancelled' | 'raced' | 'zone-changed'> {
  const table = tableName();
  const detail = detailStatusUpdate({ ...c.process, status: 'CANCELLED' });
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: keys.processById(c.process.id),
        UpdateExpression: `SET #status = :cancelled, gsi2pk = :listing, updatedDate = :now, details.notes = list_append(details.notes, :note), ${detail.set}${c.refund ? ', refund = :refund' : ''}`,
        ConditionExpression: '#status = :running AND customer = :customer',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ...detail.values,
          ':cancelled': 'CANCELLED',
          ':running': 'RUNNING',
          ':customer': c.process.customer,
          ':listing': keys.processStatusListing(c.process.id, c.process.customer, 'CANCELLED').gsi2pk,
          ':now': c.at,
          ':note': [c.note],
          ...(c.refund ? { ':refund': c.refund } : {}),
        },
      },
    },
    // Kept when the authority is to withdraw the request afterwards: the DCV job finds it, withdraws it, and removes it.
    ...(c.withdrawLater ? [] : [{ Delete: { TableName: table, Key: keys.openCertificateRequest(c.process.id) } }]),
  ];
  if (c.renews !== undefined) {
    items.push({
      Update: {
        TableName: table,
        Key: keys.certificateById(c.renews),
        UpdateExpression: 'REMOVE renewalProcessId SET updatedDate = :now',
        ConditionExpression: 'renewalProcessId = :pid',
        ExpressionAttributeValues: { ':pid': c.process.id, ':now': c.at },
      },
    });
  }
  const zonesFrom = items.length;
  items.push(...(await removeDcvRecordsItems(c.process.customer, c.dcvRecords, c.at)));
  const zonesTo = items.length;
  items.push(...itemsOf(c.commitment));
  items.push(...changedProcessItems(countedOf(c.process), { ...c.process, status: 'CANCELLED' }));
  items.push(
    ...notificationWrites(
      certificateCancelled(c.process, c.at),
      zonesTo > zonesFrom && c.dcvRecords.length > 0 ? dcvRecordsChanged(c.process, 'removed', c.dcvRecords, c.at) : undefined,
    ),
  );
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    return 'cancelled';
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') return 'raced';
    if (codes?.slice(zonesFrom, zonesTo).includes('ConditionalCheckFailed')) return 'zone-changed';
    throw error;
  }
}

/**
 * Records a resend of DCV e-mails on a running request: the authority's record of it and a note,
 * appended; at most `max` resends (false when the request stopped running or reached the limit).
 * It touches neither the validations nor anything else the DCV check writes.
 */
export async function recordDcvEmailResend(
  processId: number,
  resend: { date: string; commonNames: string[] },
  note: object,
  max: number,
  commitment?: Commitment,
): Promise<boolean> {
  const update = {
    TableName: tableName(),
    Key: keys.processById(processId),
    UpdateExpression:
      'SET details.dcvEmailResends = list_append(if_not_exists(details.dcvEmailResends, :none), :resend), details.notes = list_append(details.notes, :note), updatedDate = :now',
    ConditionExpression: '#status = :running AND (attribute_not_exists(details.dcvEmailResends) OR size(details.dcvEmailResends) < :max)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':none': [],
      ':resend': [resend],
      ':note': [note],
      ':now': resend.date,
      ':running': 'RUNNING',
      ':max': max,
    },
  };
  // With something to commit along (an Idempotency-Key's answer), one transaction; else one update.
  return conditionalUpdate(update, itemsOf(commitment));
}

/**
 * Records a change of DCV methods on a running request: its new validations (the changed entries
 * waiting again), the resend and a note, in one write, unless the process changed since it was
 * read (the DCV check moved first) or reached `max` resends. False when a condition failed.
 */
export async function recordDcvChange(
  process: ProcessRecord,
  validations: object,
  resend: { date: string; commonNames: string[] },
  note: object,
  max: number,
  commitment?: Commitment,
): Promise<boolean> {
  const detail = detailStatusUpdate({ ...process, status: 'RUNNING', details: { ...process.details, validations } });
  const update = {
    TableName: tableName(),
    Key: keys.processById(process.id),
    UpdateExpression: `SET details.validations = :validations, details.dcvEmailResends = list_append(if_not_exists(details.dcvEmailResends, :none), :resend), details.notes = list_append(details.notes, :note), updatedDate = :now, ${detail.set}`,
    ConditionExpression:
      '#status = :running AND updatedDate = :was AND (attribute_not_exists(details.dcvEmailResends) OR size(details.dcvEmailResends) < :max)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':validations': validations,
      ...detail.values,
      ':none': [],
      ':resend': [resend],
      ':note': [note],
      ':now': resend.date,
      ':running': 'RUNNING',
      ':was': process.updatedDate,
      ':max': max,
    },
  };
  return conditionalUpdate(update, itemsOf(commitment));
}

import { GetCommand, QueryCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ContactRecord } from '../../model/contact.ts';
import { db } from '../client.ts';
import { batchGetAll, parseItem, queryAll, toItem } from '../items.ts';
import { type ItemKey, keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, type TransactItem, transact } from '../transactions.ts';

/**
 * A customer's contacts (docs/contacts.md): one item per contact in the customer's partition
 * (`CONTACT#<customer>`, a handle lookup is one GetItem), listed by creation date (gsi1) and by
 * handle (gsi2), with the customer's count of contacts beside them (`COUNT`), kept in the
 * transaction of every create and delete: it bounds the address book and answers `total`.
 * Every write carries a revision, so an update never overwrites a change it did not read.
 */

const entity = 'contact';
const countEntity = 'contact-count';

/** The item a contact is stored as, with its revision (bumped by every write). */
function contactItem(record: ContactRecord, revision: number): Record<string, unknown> {
  return { ...toItem(keys.contact(record.customer, record.handle, record.createdDate), entity, record), revision };
}

/** The items of a new contact (it and its listing entries), for a bulk load (BatchWrite) of contacts no one reads yet; its caller sets the count (setContactCount). */
export function newContactItems(record: ContactRecord): Record<string, unknown>[] {
  return [contactItem(record, 1), ...entriesOf(record).map(entryItem)];
}

/**
 * The filter fields whose exact values have listings of their own (one small entry per contact
 * and field, written in the transaction of every write of the contact): a listing filtered on one
 * reads its entries, never the whole address book. `organization` without one is listed too
 * (`organization:null`).
 */
export const listedFields = ['email', 'name', 'organization', 'country'] as const;
export type ListedField = (typeof listedFields)[number];

const entryEntity = 'contact-entry';

/** A contact's listing entries: one per listed field it has a value of, and one for no organization. */
function entriesOf(record: ContactRecord): ItemKey[] {
  return listedFields.flatMap((field) => {
    const value = record[field];
    if (value !== undefined) return [keys.contactEntry(record.customer, field, value, record.handle, record.createdDate)];
    return field === 'organization' ? [keys.contactEntry(record.customer, field, null, record.handle, record.createdDate)] : [];
  });
}

function entryItem(key: ItemKey): Record<string, unknown> {
  return { ...key, entity: entryEntity, handle: (key.sk as string).slice('CONTACT#'.length) };
}

/**
 * The writes that take a contact's entries from `before`'s to `after`'s (either absent: none);
 * with `all`, every entry of `after` is put (the dataset loader and the migration: items written
 * before the entries existed have none).
 */
function entryChanges(before: ContactRecord | undefined, after: ContactRecord | undefined, all = false): TransactItem[] {
  const id = (key: ItemKey) => `${key.pk}\n${key.sk}`;
  const old = new Map((before ? entriesOf(before) : []).map((key) => [id(key), key]));
  const next = after ? entriesOf(after) : [];
  const kept = new Set(next.map(id));
  return [
    ...[...old.values()]
      .filter((key) => !kept.has(id(key)))
      .map((key): TransactItem => ({ Delete: { TableName: tableName(), Key: { pk: key.pk, sk: key.sk } } })),
    ...next
      .filter((key) => all || old.get(id(key))?.gsi1sk !== key.gsi1sk)
      .map((key): TransactItem => ({ Put: { TableName: tableName(), Item: entryItem(key) } })),
  ];
}

/** The count update of one contact more (below `max`, else the transaction is cancelled) or one fewer. */
function countChange(customer: string, delta: 1 | -1, max?: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.contactCount(customer),
      UpdateExpression: 'SET entity = :entity ADD #count :delta',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':entity': countEntity, ':delta': delta, ...(max !== undefined ? { ':max': max } : {}) },
      ...(max !== undefined ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' } : {}),
    },
  };
}

/**
 * Puts a contact as the dataset loader and the migration do: with `ifAbsent`, an existing one is
 * kept (false); a new one counts.
 */
export async function putContact(record: ContactRecord, ifAbsent = false): Promise<boolean> {
  const existing = await readContact(record.customer, record.handle, true);
  if (existing && ifAbsent) return false;
  const revision = (existing?.revision ?? 0) + 1;
  const put: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: contactItem(record, revision),
      ConditionExpression: existing ? 'attribute_exists(pk)' : 'attribute_not_exists(pk)',
    },
  };
  const entries = entryChanges(existing?.contact, record, true);
  try {
    await transact(existing ? [put, ...entries] : [put, countChange(record.customer, 1), ...entries]);
    return true;
  } catch (error) {
    if (ifAbsent && cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** A contact with the revision it was read at (what an update's condition names). */
export interface ReadContact {
  contact: ContactRecord;
  revision: number;
}

const Revision = v.object({ revision: v.optional(v.number(), 0) });

/**
 * A contact of this customer, by handle: one GetItem in the customer's own partition, so another
 * customer's handle is simply not found, at the same cost. `consistent` before a write.
 */
export async function readContact(customer: string, handle: string, consistent = false): Promise<ReadContact | undefined> {
  const out = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.contactByHandle(customer, handle),
      ...(consistent ? { ConsistentRead: true } : {}),
    }),
  );
  if (!out.Item) return undefined;
  return { contact: parseItem(ContactRecord, entity, out.Item), revision: v.parse(Revision, out.Item).revision };
}

/** A contact of this customer; another customer's handle is simply not found. */
export async function getContact(customer: string, handle: string): Promise<ContactRecord | undefined> {
  return (await readContact(customer, handle))?.contact;
}

/** Why a contact write was refused, or `written`. */
export type ContactWrite = 'written' | 'exists' | 'full' | 'changed' | 'gone';

/**
 * Creates a contact, counted, in one transaction with `along` (an Idempotency-Key's answer, a
 * notification): `exists` when the handle is taken, `full` when the customer has `max` contacts.
 */
export async function createContact(record: ContactRecord, max: number, along: readonly TransactItem[] = []): Promise<ContactWrite> {
  try {
    await transact([
      { Put: { TableName: tableName(), Item: contactItem(record, 1), ConditionExpression: 'attribute_not_exists(pk)' } },
      countChange(record.customer, 1, max),
      ...along,
      ...entryChanges(undefined, record),
    ]);
    return 'written';
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') return 'exists';
    if (codes?.[1] === 'ConditionalCheckFailed') return 'full';
    throw error;
  }
}

/** Replaces a contact (`before`, read at `revision`) by `after` (`changed` when it was written meanwhile, `gone` when deleted), with `along`. */
export async function replaceContact(
  before: ContactRecord,
  after: ContactRecord,
  revision: number,
  along: readonly TransactItem[] = [],
): Promise<ContactWrite> {
  try {
    await transact([
      {
        Put: {
          TableName: tableName(),
          Item: contactItem(after, revision + 1),
          ConditionExpression: revision === 0 ? 'attribute_exists(pk) AND attribute_not_exists(revision)' : 'revision = :revision',
          ...(revision === 0 ? {} : { ExpressionAttributeValues: { ':revision': revision } }),
        },
      },
      ...along,
      ...entryChanges(before, after),
    ]);
    return 'written';
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return 'changed';
    throw error;
  }
}

/** Deletes a contact read at `revision`, uncounted, with `along`: `changed` when it was written (or deleted) meanwhile. */
export async function deleteContact(contact: ContactRecord, revision: number, along: readonly TransactItem[] = []): Promise<ContactWrite> {
  try {
    await transact([
      {
        Delete: {
          TableName: tableName(),
          Key: keys.contactByHandle(contact.customer, contact.handle),
          ConditionExpression: revision === 0 ? 'attribute_exists(pk) AND attribute_not_exists(revision)' : 'revision = :revision',
          ...(revision === 0 ? {} : { ExpressionAttributeValues: { ':revision': revision } }),
        },
      },
      countChange(contact.customer, -1),
      ...along,
      ...entryChanges(contact, undefined),
    ]);
    return 'written';
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return 'changed';
    throw error;
  }
}

/**
 * Records that the upstream account holds the contact as read at `revision`, under `upstreamHandle`
 * (shared/contacts/upstream.ts), without changing its revision: `changed` when it was written
 * meanwhile (the next use mirrors it again).
 */
export async function recordUpstreamContact(
  customer: string,
  handle: string,
  revision: number,
  upstreamHandle: string,
): Promise<ContactWrite> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactByHandle(customer, handle),
        UpdateExpression: 'SET upstreamHandle = :upstream, upstreamRevision = :revision',
        ConditionExpression: revision === 0 ? 'attribute_exists(pk) AND attribute_not_exists(revision)' : 'revision = :revision',
        ExpressionAttributeValues: { ':upstream': upstreamHandle, ':revision': revision },
      }),
    );
    return 'written';
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return 'changed';
    throw error;
  }
}

/** How many contacts a customer has (the kept count). */
export async function readContactCount(customer: string): Promise<number> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.contactCount(customer) }));
  const count = out.Item?.count;
  return typeof count === 'number' && count > 0 ? count : 0;
}

/** Sets a customer's kept count (the migration's recount). */
export async function setContactCount(customer: string, count: number): Promise<void> {
  await transact([
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.contactCount(customer), entity: countEntity, count },
      },
    },
  ]);
}

/** The listings of a customer's contacts: by creation date (gsi1) or by handle (gsi2). */
export type ContactOrder = 'createdDate' | 'handle';

/**
 * Where a contact listing reads: every contact of the customer, or (`with`) the entries of those
 * whose listed field has one exact value (null: none); by handle, or by creation date within an
 * inclusive range of the creation date's keys (`from`, `to`: a date or time, `~` above all).
 */
export interface ContactSource {
  with?: { field: ListedField; value: string | null };
  order: ContactOrder;
  from?: string;
  to?: string;
}

/** The Query of a source (its keys-only twin where one exists, for skipping and counting). */
function queryOf(customer: string, source: ContactSource, keysOnly: boolean): Omit<QueryCommandInput, 'TableName'> {
  const partition = source.with
    ? keys.contactsWith(customer, source.with.field, source.with.value)
    : keys.contactsOfCustomer(customer).gsi1pk;
  if (source.order === 'createdDate') {
    return {
      IndexName: keysOnly ? 'gsi1keys' : 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': partition, ':from': `CONTACT#${source.from ?? ''}`, ':to': `CONTACT#${source.to ?? '~'}` },
    };
  }
  if (source.with) return { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition } };
  return {
    IndexName: keysOnly ? 'gsi2keys' : 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': partition },
  };
}

const Entry = v.object({ handle: v.string() });

/**
 * What a page of contacts reads of each item: its entity tag and the record's attributes, not the
 * keys and index attributes (about 40% of a contact's item as returned), so a page of thousands
 * carries and decodes that much less. The names go through placeholders (`name` is a reserved word).
 */
const recordProjection = (() => {
  const attributes = ['entity', ...Object.keys(ContactRecord.entries)];
  return {
    ProjectionExpression: attributes.map((_, i) => `#p${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#p${i}`, a])),
  };
})();

/**
 * One page of a source in its order: one Query of at most `limit` items (DynamoDB answers at most
 * 1 MB, about 2,000 contacts: an export asks for more and gets that), the record's attributes
 * only; of entries, then the contacts they name in one BatchGet (one deleted meanwhile is left
 * out). `read` counts what the Query read.
 */
export async function readContactPage(
  customer: string,
  source: ContactSource,
  options: { limit: number; ascending: boolean; start?: Record<string, unknown> },
): Promise<{ contacts: ContactRecord[]; read: number; next?: Record<string, unknown> }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...queryOf(customer, source, false),
      ...(source.with ? {} : recordProjection),
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  const next = out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {};
  if (!source.with) return { contacts: items.map((item) => parseItem(ContactRecord, entity, item)), read: items.length, ...next };
  const handles = items.map((item) => v.parse(Entry, item).handle);
  const found = await readContacts(customer, handles);
  return { contacts: handles.flatMap((h) => found.get(h) ?? []), read: items.length, ...next };
}

/** Keys one counting Query reads at most: the listing's time is checked between them. */
const countPageKeys = 2_500;

/**
 * Skips `count` entries of a source, counting keys only (Select COUNT over the keys-only twin of
 * its index, or over the small entries): where the page after them starts, undefined when nothing
 * is left, false past `until` (epoch ms) with keys still to count (the listing then refuses it in
 * time). Given `total` (the source's size, from the kept count), an offset past the middle is
 * counted from the far end instead, backwards: at most half the source's keys are read.
 */
export async function skipContacts(
  customer: string,
  source: ContactSource,
  count: number,
  ascending: boolean,
  options: { until?: number; total?: number } = {},
): Promise<Record<string, unknown> | undefined | false> {
  const { until, total } = options;
  if (total !== undefined && count > total / 2) {
    if (count >= total) return undefined;
    // The key of the count-th entry, reached from the other end: the page starts after it.
    return countKeys(customer, source, total - count + 1, !ascending, until);
  }
  return countKeys(customer, source, count, ascending, until);
}

/** Counts `count` keys of a source in a direction: the key of the last, undefined when fewer are left, false past `until`. */
async function countKeys(
  customer: string,
  source: ContactSource,
  count: number,
  ascending: boolean,
  until: number | undefined,
): Promise<Record<string, unknown> | undefined | false> {
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    if (until !== undefined && Date.now() >= until) return false;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...queryOf(customer, source, true),
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: Math.min(count - read, countPageKeys),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < count);
  return read === count ? start : undefined;
}

/** How many contacts a source holds, counted over its keys (Select COUNT); undefined when `until` (epoch ms) came first. */
export async function countContacts(customer: string, source: ContactSource, until?: number): Promise<number | undefined> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    if (until !== undefined && start && Date.now() >= until) return undefined;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...queryOf(customer, source, true),
        Select: 'COUNT',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

/** Every contact of a customer, whole (the migration's recount, the export of the admin CLI). */
export async function listContacts(customer: string): Promise<ContactRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.contactsOfCustomer(customer).pk, ':prefix': keys.contactsOfCustomer(customer).skPrefix },
  });
  return items.map((item) => parseItem(ContactRecord, entity, item));
}

/** Several contacts of a customer by handle, in one BatchGet: a handle not found is absent from the map. */
export async function readContacts(customer: string, handles: readonly string[]): Promise<Map<string, ContactRecord>> {
  const unique = [...new Set(handles)];
  const items = unique.length > 0 ? await batchGetAll(unique.map((h) => keys.contactByHandle(customer, h))) : [];
  return new Map(items.map((item) => parseItem(ContactRecord, entity, item)).map((c) => [c.handle, c]));
}

/** What still uses a contact handle: a domain of the customer, or an open process (a transfer in progress). */
export interface ContactUse {
  kind: 'domain' | 'process';
  identifier: string;
}

/** Process statuses in which a process may still act on its contacts. */
const openStatuses = ['NEW', 'VALIDATED', 'RUNNING', 'SCHEDULED', 'SUSPENDED', 'IN_DOUBT'] as const;

const DomainUse = v.object({
  domainName: v.string(),
  registrant: v.string(),
  contacts: v.optional(v.array(v.object({ handle: v.string() })), []),
});
const ProcessUse = v.object({
  identifier: v.string(),
  details: v.optional(
    v.object({
      plan: v.optional(
        v.object({ contacts: v.optional(v.object({ registrant: v.string(), contacts: v.array(v.object({ handle: v.string() })) })) }),
      ),
    }),
  ),
});

/**
 * The first use of a contact handle among the customer's domains (gsi1, only their registrant and
 * contacts read) and open processes (the status partitions of gsi2, only their planned contacts
 * read): undefined when nothing uses it.
 */
export async function contactUse(customer: string, handle: string): Promise<ContactUse | undefined> {
  const domains = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.domainsOfCustomer(customer).gsi1pk },
    ProjectionExpression: '#name, #registrant, #contacts',
    ExpressionAttributeNames: { '#name': 'domainName', '#registrant': 'registrant', '#contacts': 'contacts' },
  });
  for (const item of domains) {
    const d = v.parse(DomainUse, item);
    if (d.registrant === handle || d.contacts.some((c) => c.handle === handle)) return { kind: 'domain', identifier: d.domainName };
  }
  for (const status of openStatuses) {
    const processes = await queryAll({
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.processesWithStatus(customer, status).gsi2pk },
      ProjectionExpression: '#identifier, #details.#plan.#contacts',
      ExpressionAttributeNames: { '#identifier': 'identifier', '#details': 'details', '#plan': 'plan', '#contacts': 'contacts' },
    });
    for (const item of processes) {
      const p = v.parse(ProcessUse, item);
      const planned = p.details?.plan?.contacts;
      if (planned && (planned.registrant === handle || planned.contacts.some((c) => c.handle === handle))) {
        return { kind: 'process', identifier: p.identifier };
      }
    }
  }
  return undefined;
}

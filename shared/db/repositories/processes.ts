import { QueryCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ProcessRecord } from '../../model/process.ts';
import { type ProcessSummary, processSummaryOf, storedDetailStatusOf } from '../../model/process-summary.ts';
import { db } from '../client.ts';
import { batchGetAll, batchWriteAll, getItem, getItemOf, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keyKinds, keys } from '../keys.ts';
import { tableName } from '../table.ts';
import { cancellationCodes, putNew, type TransactItem, transact } from '../transactions.ts';
import { nextId } from './counters.ts';
import { processBlockChanges, readBlockVersions, readStatusBlocks, type StatusBlocks, writeStatusBlocks } from './process-blocks.ts';
import { type Counted, countedOf, processCountsChange, readProcessCounts } from './process-counts.ts';

const entity = 'process';
const identifierEntity = 'processIdentifier';

/**
 * The item a process is stored as (for use inside a caller's transaction); its keys list it by
 * customer and by status, and it carries its detail status (`detailStatus`, '' for none) for the
 * listing's summaries (gsi1list), derived from its details.
 */
export function processItem(record: ProcessRecord): Record<string, unknown> {
  return { ...toItem(keys.process(record.id, record.customer, record.status), entity, record), detailStatus: storedDetailStatusOf(record) };
}

/**
 * Stores the detail status on a process item written before items carried it (the migration):
 * only if the process is still as read (`updatedDate`) and has none yet; false when it changed
 * meanwhile (its writer stored the detail status then).
 */
export async function storeDetailStatus(record: ProcessRecord): Promise<boolean> {
  const detail = detailStatusUpdate(record);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.processById(record.id),
        UpdateExpression: `SET ${detail.set}`,
        ConditionExpression: 'updatedDate = :was AND attribute_not_exists(detailStatus)',
        ExpressionAttributeValues: { ...detail.values, ':was': record.updatedDate },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * The clause and value an update of a process adds to its SET when it changes the process's
 * status or details (validations): the stored detail status of the process as written (`after`),
 * so that the listing's summaries (gsi1list) follow every write.
 */
export function detailStatusUpdate(after: ProcessRecord): { set: string; values: { ':detailStatus': string } } {
  return { set: 'detailStatus = :detailStatus', values: { ':detailStatus': storedDetailStatusOf(after) } };
}

/**
 * The item listing a process under its identifier (for use inside the transaction that creates
 * the process). Written once: a process's identifier never changes.
 */
export function processIdentifierItem(record: Pick<ProcessRecord, 'id' | 'customer' | 'identifier'>): Record<string, unknown> {
  return toItem(keys.processIdentifier(record.customer, record.identifier, record.id), identifierEntity, { processId: record.id });
}

const typeEntity = 'processType';
const actionEntity = 'processAction';

/**
 * A process's listing items by type and by action (an exact `type` or `action` filter reads only
 * that partition): its id, written once with the process (neither ever changes).
 */
export function processTypeItems(record: Pick<ProcessRecord, 'id' | 'customer' | 'type' | 'action'>): Record<string, unknown>[] {
  return [
    toItem(keys.processType(record.customer, record.type, record.id), typeEntity, { processId: record.id }),
    toItem(keys.processAction(record.customer, record.action, record.id), actionEntity, { processId: record.id }),
  ];
}

/** Every listing item of a process (identifier, type, action). */
function listingItems(record: ProcessRecord): Record<string, unknown>[] {
  return [processIdentifierItem(record), ...processTypeItems(record)];
}

/**
 * The items every new process adds to the transaction that creates it, after the writer's own
 * items: its listings by identifier, type and action, its counts (process-counts.ts) and its status
 * listing's blocks (process-blocks.ts). Every repository that creates a process calls this, so the
 * listings, counts and blocks follow every writer.
 */
export function newProcessItems(record: ProcessRecord): TransactItem[] {
  const counts = processCountsChange(undefined, countedOf(record));
  return [
    ...listingItems(record).map((Item) => ({ Put: { TableName: tableName(), Item } })),
    ...(counts ? [counts] : []),
    ...processBlockChanges(undefined, countedOf(record)),
  ];
}

/** The listing items of a process replaced whole (`before` by `after`): those whose key changed, deleted and put. */
function movedListingItems(before: ProcessRecord, after: ProcessRecord): TransactItem[] {
  const keyOf = (item: Record<string, unknown>) => `${item.pk}|${item.sk}`;
  const was = new Map(listingItems(before).map((item) => [keyOf(item), item]));
  const now = new Map(listingItems(after).map((item) => [keyOf(item), item]));
  return [
    ...[...was].filter(([k]) => !now.has(k)).map(([, item]) => ({ Delete: { TableName: tableName(), Key: { pk: item.pk, sk: item.sk } } })),
    ...[...now].filter(([k]) => !was.has(k)).map(([, Item]) => ({ Put: { TableName: tableName(), Item } })),
  ];
}

/**
 * The items a change of a process adds to the transaction that writes it (after the writer's own
 * items): its counts, and its status listing's blocks, moved from what it counted as before
 * (`before`) to the record written.
 */
export function changedProcessItems(before: Counted, after: ProcessRecord): TransactItem[] {
  const counts = processCountsChange(before, countedOf(after));
  return [...(counts ? [counts] : []), ...processBlockChanges(before, countedOf(after))];
}

/**
 * Stores a process (datasets, tests) with its identifier listing and its counts, in one
 * transaction guarded by what was read of it first. With `ifAbsent`, an existing process is kept
 * (false); without, it is replaced and its counts move from the old record to the new one.
 */
export async function putProcess(record: ProcessRecord, ifAbsent = false): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const existing = await getProcessById(record.id, true);
    if (existing && ifAbsent) return false;
    const items: TransactItem[] = existing
      ? [
          {
            Put: {
              TableName: tableName(),
              Item: processItem(record),
              ConditionExpression: 'updatedDate = :was',
              ExpressionAttributeValues: { ':was': existing.updatedDate },
            },
          },
          ...movedListingItems(existing, record),
          ...(existing.customer === record.customer
            ? changedProcessItems(countedOf(existing), record)
            : [
                ...[processCountsChange(countedOf(existing), undefined), processCountsChange(undefined, countedOf(record))].filter(
                  (x) => x !== undefined,
                ),
                ...processBlockChanges(countedOf(existing), countedOf(record)),
              ]),
        ]
      : [putNew(processItem(record)), ...newProcessItems(record)];
    try {
      await transact(items);
      return true;
    } catch (error) {
      // Written meanwhile by someone else: read it again (a few times), then give up loudly.
      if (cancellationCodes(error)?.[0] !== 'ConditionalCheckFailed' || attempt >= 3) throw error;
    }
  }
}

/**
 * A process of this customer; another customer's process reads as absent (contract section 1).
 * `consistent` for a read that a conditional write follows.
 */
export function getProcess(id: number, customer: string, consistent = false): Promise<ProcessRecord | undefined> {
  return getItemOf(customer, keys.processById(id), ProcessRecord, entity, consistent);
}

/** A process, whoever holds it: for the jobs and the sandbox, which act for no caller (API callers use getProcess). */
export function getProcessById(id: number, consistent = false): Promise<ProcessRecord | undefined> {
  return getItem(keys.processById(id), ProcessRecord, entity, consistent);
}

/** The next process id (atomic; see counters.ts). */
export function allocateProcessId(): Promise<number> {
  return nextId('process');
}

/** Which of a customer's processes a listing reads: all of them, one status, or one identifier. */
export type ProcessSource =
  | { index: 'all' }
  | { index: 'status'; status: string }
  | { index: 'identifier'; identifier: string }
  | { index: 'type'; type: string }
  | { index: 'action'; action: string };

/** The sources read from listing items of the table (an id each), whose processes are then read by id. */
export type ListedSource = Extract<ProcessSource, { index: 'identifier' | 'type' | 'action' }>;
const listed = (source: ProcessSource): source is ListedSource =>
  source.index === 'identifier' || source.index === 'type' || source.index === 'action';

/** Where a listing stopped reading (DynamoDB's LastEvaluatedKey), to go on from. */
export type ProcessCursor = Record<string, unknown>;

/** One page of a listing: the processes in id order, how many items were read, and where to go on (absent at the end). */
export interface ProcessPage {
  processes: ProcessRecord[];
  read: number;
  next?: ProcessCursor;
}

/** The key condition of the index partition that holds a source's processes (or their identifier listings). */
function partitionOf(
  customer: string,
  source: ProcessSource,
): Pick<QueryCommandInput, 'IndexName' | 'KeyConditionExpression' | 'ExpressionAttributeValues'> {
  switch (source.index) {
    case 'all':
      return {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesOfCustomer(customer).gsi1pk },
      };
    case 'status':
      return {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesWithStatus(customer, source.status).gsi2pk },
      };
    case 'identifier':
      return {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesWithIdentifier(customer, source.identifier).pk },
      };
    case 'type':
      return { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.processesOfType(customer, source.type).pk } };
    case 'action':
      return {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesWithAction(customer, source.action).pk },
      };
  }
}

/** The entity of each kind of listing item. */
const listingEntity = { identifier: identifierEntity, type: typeEntity, action: actionEntity } as const;

const IdentifierListing = v.object({ processId: v.pipe(v.number(), v.integer(), v.minValue(1)) });

/**
 * One page of a customer's processes from the index that serves `source`, in id order (newest
 * first unless `ascending`): one Query of at most `limit` items (an identifier listing then reads
 * its processes with one BatchGet). Never another customer's: every partition names the customer.
 */
export async function readProcessPage(
  customer: string,
  source: ProcessSource,
  options: { limit: number; ascending: boolean; start?: ProcessCursor },
): Promise<ProcessPage> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...partitionOf(customer, source),
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  const next = out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {};
  if (!listed(source)) {
    return { processes: items.map((item) => parseItem(ProcessRecord, entity, item)), read: items.length, ...next };
  }
  const ids = items.map((item) => parseItem(IdentifierListing, listingEntity[source.index], item).processId);
  // A listing's process is written in the same transaction; one missing would be a bug, not a reason to fail the page.
  const processes = await readProcessesById(customer, ids);
  return { processes, read: items.length + processes.length, ...next };
}

/** A summary as gsi1list holds it (`detailStatus` '' for none; absent on an item written before the attribute). */
const SummaryEntry = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  status: v.string(),
  type: v.string(),
  action: v.string(),
  identifier: v.string(),
  createdDate: v.string(),
  detailStatus: v.optional(v.string()),
});

/** One page of a customer's process summaries: in id order, the entries read (and whole items, for old ones), where to go on. */
export interface ProcessSummaryPage {
  summaries: ProcessSummary[];
  read: number;
  next?: ProcessCursor;
}

/** The summary twin of the index partition a source reads: the customer's listing (gsi1list) or one status's (gsi2list). */
const summaryIndex = { all: 'gsi1list', status: 'gsi2list' } as const;

/**
 * One page of the process summaries of a source (all the customer's processes, or one status's)
 * in id order (newest first unless `ascending`): one Query of at most `limit` entries of its
 * summary index, the listing with only the attributes its filters and search read
 * (shared/db/table.ts), about 250 bytes an entry instead of the whole process. A process written
 * before it stored its detail status is read whole (one BatchGet for the page's such processes)
 * and summarized from its details.
 */
export async function readProcessSummaries(
  customer: string,
  source: Exclude<ProcessSource, ListedSource>,
  options: { limit: number; ascending: boolean; start?: ProcessCursor },
): Promise<ProcessSummaryPage> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      ...partitionOf(customer, source),
      IndexName: summaryIndex[source.index],
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const entries = (out.Items ?? []).map((item) => v.parse(SummaryEntry, item));
  const older = entries.filter((e) => e.detailStatus === undefined).map((e) => e.id);
  const whole = new Map((await readProcessesById(customer, older)).map((p) => [p.id, processSummaryOf(p)]));
  const summaries = entries.flatMap(({ detailStatus, ...summary }): ProcessSummary[] => {
    if (detailStatus === undefined) return whole.has(summary.id) ? [whole.get(summary.id) as ProcessSummary] : [];
    return [{ ...summary, ...(detailStatus !== '' ? { detailStatus } : {}) }];
  });
  return { summaries, read: entries.length + older.length, ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/**
 * A customer's processes by id, whole, in the order asked (one BatchGet of up to 100 keys at a
 * time): what a listing shows of the summaries that make its page. A process gone meanwhile, or
 * another customer's, is left out.
 */
export async function readProcessesById(customer: string, ids: readonly number[]): Promise<ProcessRecord[]> {
  const found = ids.length > 0 ? await batchGetAll(ids.map((id) => keys.processById(id))) : [];
  const byId = new Map(found.map((item) => [item.id, parseItem(ProcessRecord, entity, item)]));
  return ids.flatMap((id) => {
    const p = byId.get(id);
    return p && p.customer === customer ? [p] : [];
  });
}

/**
 * The index a source skips over: the customer's listing and the status listing over their
 * keys-only twins (gsi1keys, gsi2keys: shared/db/table.ts), never over whole items; the
 * identifier listings are small key items already (the table itself).
 */
const keysOnly = { all: 'gsi1keys', status: 'gsi2keys', identifier: undefined, type: undefined, action: undefined } as const;

/**
 * Where a listing of `source` goes on after skipping `count` processes, counting them only
 * (`Select: COUNT`: nothing but the count and the key to go on from comes back): the cursor to
 * read the page from (readProcessPage's `start`), or undefined when the source holds no more
 * than `count`; false when `until` came first.
 */
export async function skipProcesses(
  customer: string,
  source: ProcessSource,
  count: number,
  ascending: boolean,
  until?: number,
): Promise<ProcessCursor | undefined | false> {
  if (source.index === 'all') return skipFromMark(customer, count, ascending, until);
  if (source.index === 'status') {
    const blocks = await statusBlocksOf(customer, source.status);
    if (blocks) return skipByBlocks(customer, source.status, blocks, count, ascending, until);
  }
  return countAlong(customer, source, count, ascending, undefined, until);
}

/**
 * The blocks of a customer's status listing (all its processes, or those of `type`), when they
 * agree with the kept count of the status (process-blocks.ts); undefined when they do not.
 */
export async function statusBlocksOf(customer: string, status: string, type?: string): Promise<StatusBlocks | undefined> {
  const kept = (await readProcessCounts(customer)).counts.get(`status:${status}`) ?? 0;
  return readStatusBlocks(customer, status, kept, type);
}

/**
 * The listing key (gsi2 and its twins) just before a process id of a status listing, in one
 * direction: where a Query that is to start at that id goes on from (no process need have it).
 */
function statusKeyBefore(customer: string, status: string, id: number, ascending: boolean): ProcessCursor | undefined {
  if (ascending && id <= 1) return undefined;
  const { pk, sk, gsi2pk, gsi2sk } = keys.process(ascending ? id - 1 : id + 1, customer, status);
  return { pk, sk, gsi2pk, gsi2sk };
}

/**
 * Where a status listing's page starts, in ascending id order, after the match at `index`
 * (0-based): from the start of the fine block that holds it, counting its keys up to it. Newest
 * first, the page starts after the match at `total - offset`; oldest first, after `offset - 1`.
 */
async function skipByBlocks(
  customer: string,
  status: string,
  blocks: StatusBlocks,
  count: number,
  ascending: boolean,
  until?: number,
): Promise<ProcessCursor | undefined | false> {
  if (count >= blocks.total) return undefined;
  const index = ascending ? count - 1 : blocks.total - count;
  const source = { index: 'status', status } as const;
  const at = await blocks.locate(index);
  // Fine blocks that do not add up (a rebuild raced a write): count as before.
  if (!at) return countAlong(customer, source, count, ascending, undefined, until);
  return countAlong(customer, source, index - at.before + 1, true, statusKeyBefore(customer, status, at.firstId, true), until);
}

/**
 * Where reading a status listing's summaries should start to find the match at position
 * `offset` of the listing of its processes of one type (newest first unless `ascending`), from
 * that type's blocks (statusBlocksOf): the key to go on from and how many matches come before it
 * in that direction. Undefined when the blocks do not answer (the listing then reads from the
 * start); 'none' past the last match.
 */
export async function seekStatusType(
  customer: string,
  status: string,
  blocks: StatusBlocks | undefined,
  offset: number,
  ascending: boolean,
): Promise<{ start?: ProcessCursor; before: number } | 'none' | undefined> {
  if (!blocks) return undefined;
  if (offset >= blocks.total) return 'none';
  const index = ascending ? offset : blocks.total - 1 - offset;
  const at = await blocks.locate(index);
  if (!at) return undefined;
  if (ascending) {
    const start = statusKeyBefore(customer, status, at.firstId, true);
    return { ...(start ? { start } : {}), before: at.before };
  }
  // Newest first: from just after the fine block, with the matches of the blocks after it before.
  const start = statusKeyBefore(customer, status, at.lastId, false);
  return { ...(start ? { start } : {}), before: blocks.total - at.before - at.within };
}

/** Counts `count` keys of a source from `from` (exclusive; the start when absent): the key of the last, undefined when fewer are left, false past `until`. */
async function countAlong(
  customer: string,
  source: ProcessSource,
  count: number,
  ascending: boolean,
  from: ProcessCursor | undefined,
  until?: number,
): Promise<ProcessCursor | undefined | false> {
  const partition = partitionOf(customer, source);
  const index = keysOnly[source.index];
  let read = 0;
  let start: ProcessCursor | undefined = from;
  if (count === 0) return from;
  do {
    // Past `until` (epoch ms) with keys still to skip: false, and the listing refuses the request.
    if (until !== undefined && read > 0 && Date.now() >= until) return false;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...partition,
        ...(index ? { IndexName: index } : {}),
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: count - read,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < count);
  return read === count ? start : undefined;
}

/** How old a process must be before a mark counts it (its lower-id neighbours are all written by then). */
const markSettleMs = 5 * 60_000;

/** Positions between two marks of a customer's process listing. */
export const processMarkSpacing = 100;
const markEntity = 'processMark';
const Mark = v.object({
  position: v.pipe(v.number(), v.integer(), v.minValue(0)),
  processId: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/** The listing key (gsi1 and its twins) of a customer's process: where a Query goes on after it. */
function listingKeyOf(customer: string, id: number): ProcessCursor {
  const { pk, sk, gsi1pk, gsi1sk } = keys.process(id, customer, '');
  return { pk, sk, gsi1pk, gsi1sk };
}

/** The customer's last mark at or before a position (one Query of one item), or the last of all. */
async function markAtOrBefore(customer: string, position?: number): Promise<v.InferOutput<typeof Mark> | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: position === undefined ? 'pk = :pk' : 'pk = :pk AND sk <= :sk',
      ExpressionAttributeValues: {
        ':pk': keys.processMarks(customer).pk,
        ...(position === undefined ? {} : { ':sk': keys.processMark(customer, position).sk }),
      },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const item = out.Items?.[0];
  return item ? parseItem(Mark, markEntity, item) : undefined;
}

/**
 * Skips `count` of a customer's processes (in id order, either way) from the nearest mark: the key
 * of the process just before the page, found by counting at most `processMarkSpacing` keys plus
 * those written since the last mark, instead of every key before the offset. Newest first, the
 * position is taken from the kept count of the customer's processes. Without a mark at or before
 * it (a customer not marked yet), from whichever end of the listing is nearer.
 */
async function skipFromMark(
  customer: string,
  count: number,
  ascending: boolean,
  until?: number,
): Promise<ProcessCursor | undefined | false> {
  const all = { index: 'all' } as const;
  if (ascending) {
    const mark = await markAtOrBefore(customer, count - 1);
    if (!mark) return countAlong(customer, all, count, true, undefined, until);
    return countAlong(customer, all, count - 1 - mark.position, true, listingKeyOf(customer, mark.processId), until);
  }
  const total = (await readProcessCounts(customer)).counts.get('all') ?? 0;
  if (count >= total) return undefined;
  // Newest first, the page starts after the process at position total - count (ascending).
  const target = total - count;
  const mark = await markAtOrBefore(customer, target);
  let at: ProcessCursor | undefined | false;
  if (mark) at = await countAlong(customer, all, target - mark.position, true, listingKeyOf(customer, mark.processId), until);
  else if (target + 1 <= count) at = await countAlong(customer, all, target + 1, true, undefined, until);
  else return countAlong(customer, all, count, false, undefined, until);
  // Fewer processes than counted (the kept count ahead of the listing): count from the newest.
  return at === undefined ? countAlong(customer, all, count, false, undefined, until) : at;
}

/**
 * Builds a customer's status listing blocks (process-blocks.ts) afresh from its status listings
 * (gsi2list: the id and type of each process, about 40 bytes an entry), for each status whose
 * blocks do not add up to its kept count, or for every status with `afresh`: the migration and
 * the count repair. A block a process write changed meanwhile is not replaced, and the status is
 * read again (up to `rounds` times). The status index lags a write by milliseconds: a status
 * change in that moment can leave a block off by one, which the listing's check finds (the blocks
 * no longer add up) and the next repair rebuilds. Answers how many statuses were rebuilt.
 */
export async function rebuildProcessBlocks(customer: string, options: { afresh?: boolean; rounds?: number } = {}): Promise<number> {
  const counts = (await readProcessCounts(customer, true)).counts;
  const statuses = [...counts.keys()].filter((d) => d.startsWith('status:')).map((d) => d.slice('status:'.length));
  let rebuilt = 0;
  for (const status of statuses) {
    if (!options.afresh && (await readStatusBlocks(customer, status, counts.get(`status:${status}`) ?? 0))) continue;
    for (let round = 1; ; round++) {
      const versions = await readBlockVersions(customer, status);
      const listed = await queryAll({
        IndexName: 'gsi2list',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesWithStatus(customer, status).gsi2pk },
        ProjectionExpression: 'id, #type',
        ExpressionAttributeNames: { '#type': 'type' },
      });
      const processes = listed.map((item) => ({ id: Number(item.id), type: String(item.type) }));
      if (await writeStatusBlocks(customer, status, processes, versions)) break;
      if (round >= (options.rounds ?? 5)) {
        throw new Error(`The ${status} processes of ${customer} kept changing during ${round} rebuilds of their blocks; run it again`);
      }
    }
    rebuilt++;
  }
  return rebuilt;
}

/** Deletes a customer's listing marks (the bench's read of before; a rebuild afresh). */
export async function deleteProcessMarks(customer: string): Promise<void> {
  const old = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.processMarks(customer).pk } });
  await batchWriteAll(old.map((item) => ({ delete: { pk: String(item.pk), sk: String(item.sk) } })));
}

/** Whether a customer's listing has marks. */
export async function hasMarks(customer: string): Promise<boolean> {
  return (await markAtOrBefore(customer)) !== undefined;
}

export async function markProcessPositions(
  customer: string,
  options: { afresh?: boolean; deadline?: number } = {},
): Promise<{ marks: number; complete: boolean }> {
  if (options.afresh) await deleteProcessMarks(customer);
  const last = options.afresh ? undefined : await markAtOrBefore(customer);
  let position = last ? last.position : -1;
  let start: ProcessCursor | undefined = last ? listingKeyOf(customer, last.processId) : undefined;
  let marks = 0;
  const settledBefore = new Date(Date.now() - markSettleMs).toISOString();
  do {
    if (options.deadline !== undefined && Date.now() >= options.deadline) return { marks, complete: false };
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1list',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processesOfCustomer(customer).gsi1pk },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      // A process of the last minutes may still have one with a lower id in flight (its id claimed,
      // its transaction not yet in the index): no mark from it on, until a later run.
      if (String(item.createdDate) > settledBefore) return { marks, complete: true };
      position++;
      if (position % processMarkSpacing !== processMarkSpacing - 1) continue;
      const processId = Number(String(item.pk).slice(keyKinds.process.length));
      // One PutItem a mark (one per 100 processes): the scheduled repair needs no batch write.
      await putItem(toItem(keys.processMark(customer, position), markEntity, { position, processId }));
      marks++;
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return { marks, complete: true };
}

/**
 * How many processes a source holds, counted by the index (Select COUNT, 1 MB of items a call),
 * reading at most `max` items and one more: `complete` is false when the source holds more than `max`.
 */
export async function countProcesses(
  customer: string,
  source: ProcessSource,
  max: number,
): Promise<{ count: number; read: number; complete: boolean }> {
  let count = 0;
  let read = 0;
  let start: ProcessCursor | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        ...partitionOf(customer, source),
        Select: 'COUNT',
        Limit: max + 1 - read,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    read += out.ScannedCount ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read <= max);
  return { count, read, complete: read <= max };
}

/**
 * The newest process of a customer listed under an identifier that `matches` (the latest transfer
 * of a domain name): the identifier's listing read newest first, a page at a time, until one
 * matches. Never another customer's: the listing's partition names the customer.
 */
export async function latestProcessWithIdentifier(
  customer: string,
  identifier: string,
  matches: (process: ProcessRecord) => boolean,
): Promise<ProcessRecord | undefined> {
  let start: ProcessCursor | undefined;
  do {
    const page = await readProcessPage(
      customer,
      { index: 'identifier', identifier },
      { limit: 10, ascending: false, ...(start ? { start } : {}) },
    );
    const found = page.processes.find(matches);
    if (found) return found;
    start = page.next;
  } while (start);
  return undefined;
}

/**
 * Gives a process written before the listings by type and action its two listing items (the
 * migration): put only where absent (a writer since put the same). False when both were there.
 */
export async function listProcessByType(record: Pick<ProcessRecord, 'id' | 'customer' | 'type' | 'action'>): Promise<boolean> {
  let put = false;
  for (const item of processTypeItems(record)) put = (await putItem(item, true)) || put;
  return put;
}

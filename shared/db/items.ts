import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from './client.ts';
import type { ItemKey } from './keys.ts';
import { tableName } from './table.ts';

/**
 * The few item operations every repository shares. Items carry their keys, an `entity` name and the
 * record's fields; reads go through the record's schema, so a malformed row fails loudly.
 */

/** Checks the entity tag and parses the record fields (valibot objects drop the key attributes). */
export function parseItem<S extends v.GenericSchema>(schema: S, entity: string, item: Record<string, unknown>): v.InferOutput<S> {
  if (item.entity !== entity) {
    throw new Error(`Item ${String(item.pk)}/${String(item.sk)} is a '${String(item.entity)}', expected '${entity}'`);
  }
  return v.parse(schema, item);
}

/** The full item for a record: keys, entity tag, fields. */
export function toItem(key: ItemKey, entity: string, record: object): Record<string, unknown> {
  return { ...record, ...key, entity };
}

/** Puts an item. With `ifAbsent`, an existing item is kept and false is returned. */
export async function putItem(item: Record<string, unknown>, ifAbsent = false): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: item,
        ...(ifAbsent ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (ifAbsent && (error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** One GetItem, parsed; undefined when absent. `consistent` for a read that a conditional write follows. */
export async function getItem<S extends v.GenericSchema>(
  key: { pk: string; sk: string },
  schema: S,
  entity: string,
  consistent = false,
): Promise<v.InferOutput<S> | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ...(consistent ? { ConsistentRead: true } : {}) }));
  return out.Item ? parseItem(schema, entity, out.Item) : undefined;
}

/** The filter that keeps only a customer's items: the table hands back nothing of another customer's. */
export const ownedBy = (customer: string) => ({
  FilterExpression: 'customer = :owner',
  ExpressionAttributeValues: { ':owner': customer },
});

/**
 * One item a customer owns, parsed; undefined when absent or another customer's. The item is read
 * by its key with a Query whose filter keeps only the customer's, so another customer's item and
 * a missing one are the same call with the same empty answer: the function does the same work for
 * both, and existence does not leak, not even in time (contract section 1).
 */
export async function getItemOf<S extends v.GenericSchema<unknown, { customer: string }>>(
  customer: string,
  key: { pk: string; sk: string },
  schema: S,
  entity: string,
  consistent = false,
): Promise<v.InferOutput<S> | undefined> {
  const filter = ownedBy(customer);
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      FilterExpression: filter.FilterExpression,
      ExpressionAttributeValues: { ':pk': key.pk, ':sk': key.sk, ...filter.ExpressionAttributeValues },
      ...(consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return Items[0] && parseItem(schema, entity, Items[0]);
}

/** A Query paged to the end (DynamoDB returns at most 1 MB a page), raw items. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The key condition of a whole partition, of the table or (`gsi1pk`) of gsi1. */
const partition = (attribute: 'pk' | 'gsi1pk', value: string) => ({
  KeyConditionExpression: `${attribute} = :pk`,
  ExpressionAttributeValues: { ':pk': value },
});

/**
 * Every item of one partition, paged to the end, raw (a partition may hold several entities);
 * with `owner`, only that customer's items (another customer's are filtered out by the table).
 */
export function queryPartition(pk: string, owner?: string): Promise<Record<string, unknown>[]> {
  if (owner === undefined) return queryAll(partition('pk', pk));
  const filter = ownedBy(owner);
  return queryAll({
    KeyConditionExpression: 'pk = :pk',
    FilterExpression: filter.FilterExpression,
    ExpressionAttributeValues: { ':pk': pk, ...filter.ExpressionAttributeValues },
  });
}

/** Every item of one partition, all of one entity, in sort-key order, parsed. */
export async function listPartition<S extends v.GenericSchema>(pk: string, schema: S, entity: string): Promise<v.InferOutput<S>[]> {
  return (await queryPartition(pk)).map((item) => parseItem(schema, entity, item));
}

/** The last item of one partition in sort-key order (the newest, for date sort keys), parsed: one Query of one item. */
export async function lastInPartition<S extends v.GenericSchema>(
  pk: string,
  schema: S,
  entity: string,
): Promise<v.InferOutput<S> | undefined> {
  const { Items = [] } = await db().send(
    new QueryCommand({ TableName: tableName(), ...partition('pk', pk), ScanIndexForward: false, Limit: 1 }),
  );
  return Items[0] && parseItem(schema, entity, Items[0]);
}

/** Every item of one entity listed under a gsi1 partition (a customer's keys, domains, zones, ...), paged to the end, parsed. */
export async function listByGsi1<S extends v.GenericSchema>(gsi1pk: string, schema: S, entity: string): Promise<v.InferOutput<S>[]> {
  const items = await queryAll({ IndexName: 'gsi1', ...partition('gsi1pk', gsi1pk) });
  return items.map((item) => parseItem(schema, entity, item));
}

/** A range of gsi1 sort keys in one gsi1 partition: the things due at a time, keyed by when they are due. */
export interface Gsi1Range {
  gsi1pk: string;
  gsi1skMin: string;
  gsi1skMax: string;
}

/** The items of a gsi1 range, oldest first: one Query page of at most `limit` (the rest wait for the next run). */
export async function listGsi1Range<S extends v.GenericSchema>(
  range: Gsi1Range,
  limit: number,
  schema: S,
  entity: string,
): Promise<v.InferOutput<S>[]> {
  return (await pageGsi1Range(range, limit, schema, entity)).items;
}

/**
 * One Query page of a gsi1 range, oldest first, from `start` (the page before's `next`): at most
 * `limit` items, and where the next page starts when there is one (a job's due listing, paged).
 */
export async function pageGsi1Range<S extends v.GenericSchema>(
  range: Gsi1Range,
  limit: number,
  schema: S,
  entity: string,
  start?: Record<string, unknown>,
): Promise<{ items: v.InferOutput<S>[]; next?: Record<string, unknown> }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :min AND :max',
      ExpressionAttributeValues: { ':pk': range.gsi1pk, ':min': range.gsi1skMin, ':max': range.gsi1skMax },
      Limit: limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  const items = (out.Items ?? []).map((item) => parseItem(schema, entity, item));
  return { items, ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** BatchGet's limit of keys per request. */
const batchGetLimit = 100;

/**
 * BatchGet of any number of keys (one request per 100), retrying what DynamoDB leaves
 * unprocessed; raw items, any order. `consistent` asks for strongly consistent reads.
 */
export async function batchGetAll(
  itemKeys: { pk: string; sk: string }[],
  options: { consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  if (itemKeys.length > batchGetLimit) {
    const chunks: { pk: string; sk: string }[][] = [];
    for (let i = 0; i < itemKeys.length; i += batchGetLimit) chunks.push(itemKeys.slice(i, i + batchGetLimit));
    return (await Promise.all(chunks.map((chunk) => batchGetAll(chunk, options)))).flat();
  }
  const items: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = itemKeys.map(({ pk, sk }) => ({ pk, sk }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(attempt, 6)));
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) } } }),
    );
    items.push(...(out.Responses?.[tableName()] ?? []));
    pending = out.UnprocessedKeys?.[tableName()]?.Keys ?? [];
  }
  return items;
}

/**
 * Reads several items, each named by the caller, in one BatchGet (the same key asked twice is
 * read once): the raw item per name, absent when the item does not exist. Repositories' schemas
 * then parse each.
 */
export async function readItems<N extends string>(
  named: Record<N, { pk: string; sk: string }>,
  options: { consistent?: boolean } = {},
): Promise<Partial<Record<N, Record<string, unknown>>>> {
  const id = (k: { pk: string; sk: string }) => `${k.pk}\u0000${k.sk}`;
  const unique = new Map<string, { pk: string; sk: string }>();
  for (const k of Object.values(named) as { pk: string; sk: string }[]) unique.set(id(k), { pk: k.pk, sk: k.sk });
  const items = unique.size > 0 ? await batchGetAll([...unique.values()], options) : [];
  const byKey = new Map(items.map((item) => [id(item as { pk: string; sk: string }), item]));
  const out: Partial<Record<N, Record<string, unknown>>> = {};
  for (const [name, k] of Object.entries(named) as [N, { pk: string; sk: string }][]) {
    const item = byKey.get(id(k));
    if (item) out[name] = item;
  }
  return out;
}

/** One write of a BatchWrite: an item to put, or the key of an item to delete. */
export type BatchWrite = { put: Record<string, unknown> } | { delete: { pk: string; sk: string } };

/** BatchWrite's limit of writes per request. */
const batchWriteLimit = 25;
/** BatchWrite requests in flight at once. */
const batchWriteConcurrency = 8;

/**
 * Any number of puts and deletes as BatchWrite requests (25 a request, 8 in flight), retrying
 * what DynamoDB leaves unprocessed. Not atomic: callers write what no reader sees yet, or delete
 * what no reader needs any more.
 */
export async function batchWriteAll(writes: readonly BatchWrite[]): Promise<void> {
  const chunks: BatchWrite[][] = [];
  for (let i = 0; i < writes.length; i += batchWriteLimit) chunks.push(writes.slice(i, i + batchWriteLimit));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++] as BatchWrite[];
      let pending: Record<string, unknown>[] = chunk.map((w) =>
        'put' in w ? { PutRequest: { Item: w.put } } : { DeleteRequest: { Key: w.delete } },
      );
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(attempt, 6)));
        const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = out.UnprocessedItems?.[tableName()] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(batchWriteConcurrency, chunks.length) }, worker));
}

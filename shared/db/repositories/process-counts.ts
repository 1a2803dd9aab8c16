import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ProcessRecord } from '../../model/process.ts';
import { detailStatusOf } from '../../model/process-detail.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
import type { TransactItem } from '../transactions.ts';

/**
 * A customer's process counts, kept in the same transaction as every process write, so that
 * `pagination.total` of the listing reads a constant number of items whatever the size of the
 * account: how many processes in all, and how many per status, type, action and detail status.
 *
 * The counts are sharded: a process counts in shard `id % processCountShards`, an item of its own
 * partition (keys.processCounts). One item takes about 1,000 writes a second; with 8 shards a
 * customer's processes can be written at about 8,000 a second before the counts throttle. A count
 * is the sum over the shards, read with one BatchGet of 8 small items.
 *
 * Each shard item carries `version`, added to by every write: the repair (writeProcessCounts)
 * replaces a shard only if no write touched it since it read the versions.
 */

export const processCountShards = 8;
const entity = 'processCounts';
/** Count attributes are named `c:<dimension>` (`c:all`, `c:status:RUNNING`, `c:type:domain`, ...). */
const prefix = 'c:';

/** What a process counts under. */
export interface Counted {
  id: number;
  customer: string;
  status: string;
  type: string;
  action: string;
  detail?: string;
}

/** A process as it counts. */
export function countedOf(process: ProcessRecord): Counted {
  const detail = detailStatusOf(process);
  const { id, customer, status, type, action } = process;
  return { id, customer, status, type, action, ...(detail !== undefined ? { detail } : {}) };
}

/** The dimensions a process counts in: `all`, and one per status, type, action and (when it has one) detail status. */
function dimensionsOf(c: Counted): string[] {
  const out = ['all', `status:${c.status}`, `type:${c.type}`, `action:${c.action}`];
  if (c.detail !== undefined) out.push(`detail:${c.detail}`);
  return out;
}

const shardOf = (id: number) => id % processCountShards;

/**
 * The transaction item that moves a process's counts from `before` (absent: a new process) to
 * `after` (absent: a process removed), or undefined when no count changes. Every repository that
 * writes a process adds it to the transaction of that write (processes.ts builds it for them).
 */
export function processCountsChange(before: Counted | undefined, after: Counted | undefined): TransactItem | undefined {
  const ref = after ?? before;
  if (!ref) return undefined;
  const deltas = new Map<string, number>();
  for (const [c, sign] of [
    [before, -1],
    [after, 1],
  ] as const) {
    if (c) for (const d of dimensionsOf(c)) deltas.set(d, (deltas.get(d) ?? 0) + sign);
  }
  const changed = [...deltas].filter(([, n]) => n !== 0);
  if (changed.length === 0) return undefined;
  const names: Record<string, string> = { '#v': 'version', '#e': 'entity' };
  const values: Record<string, unknown> = { ':one': 1, ':entity': entity };
  const adds = changed.map(([dimension, n], i) => {
    names[`#n${i}`] = `${prefix}${dimension}`;
    values[`:d${i}`] = n;
    return `#n${i} :d${i}`;
  });
  return {
    Update: {
      TableName: tableName(),
      Key: keys.processCounts(ref.customer, shardOf(ref.id)),
      UpdateExpression: `SET #e = :entity ADD ${adds.join(', ')}, #v :one`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A customer's counts: by dimension (`all`, `status:RUNNING`, ...), summed over the shards; absent dimensions are 0. */
export interface ProcessCounts {
  counts: Map<string, number>;
  /** The version of each shard as read (absent shards: 0). */
  versions: number[];
  /** Items read. */
  read: number;
}

/** Reads a customer's counts: one BatchGet of its shards. */
export async function readProcessCounts(customer: string, consistent = false): Promise<ProcessCounts> {
  const shardKeys = Array.from({ length: processCountShards }, (_, shard) => keys.processCounts(customer, shard));
  const items = await batchGetAll(shardKeys, { consistent });
  const counts = new Map<string, number>();
  const versions = Array<number>(processCountShards).fill(0);
  for (const item of items) {
    const shard = shardKeys.findIndex((k) => k.pk === item.pk);
    if (shard >= 0) versions[shard] = Number(item.version ?? 0);
    for (const [name, value] of Object.entries(item)) {
      if (name.startsWith(prefix) && typeof value === 'number') {
        const dimension = name.slice(prefix.length);
        counts.set(dimension, (counts.get(dimension) ?? 0) + value);
      }
    }
  }
  return { counts, versions, read: items.length };
}

/** Counts by dimension, one map per shard (what a repair has counted so far). */
export type ShardCounts = Record<string, number>[];

/** Empty counts for every shard. */
export function emptyShardCounts(): ShardCounts {
  return Array.from({ length: processCountShards }, () => ({}));
}

/** Adds processes to counts by shard (in place). */
export function countInto(shards: ShardCounts, processes: readonly Counted[]): void {
  for (const c of processes) {
    const counts = shards[shardOf(c.id)] as Record<string, number>;
    for (const d of dimensionsOf(c)) counts[d] = (counts[d] ?? 0) + 1;
  }
}

/** The counts by dimension summed over the shards. */
export function summed(shards: ShardCounts): Map<string, number> {
  const out = new Map<string, number>();
  for (const counts of shards) for (const [d, n] of Object.entries(counts)) out.set(d, (out.get(d) ?? 0) + n);
  return out;
}

/**
 * Replaces a customer's counts with `shards` (every process of the customer, as the repair read
 * them after reading `versions`): each shard is written only if its version is still the one
 * read, so a process written meanwhile is not lost. Answers the shards that were not written (a
 * write raced the repair): read the versions and the processes again and repeat for them.
 */
export async function writeProcessCounts(customer: string, shards: ShardCounts, versions: readonly number[]): Promise<number[]> {
  const raced: number[] = [];
  await Promise.all(
    shards.map(async (counts, shard) => {
      const version = versions[shard] ?? 0;
      const item = {
        ...keys.processCounts(customer, shard),
        entity,
        version: version + 1,
        ...Object.fromEntries(Object.entries(counts).map(([d, n]) => [`${prefix}${d}`, n])),
      };
      try {
        await db().send(
          new PutCommand({
            TableName: tableName(),
            Item: item,
            ConditionExpression: version === 0 ? 'attribute_not_exists(version) OR version = :v' : 'version = :v',
            ExpressionAttributeValues: { ':v': version },
          }),
        );
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        raced.push(shard);
      }
    }),
  );
  return raced.sort((a, b) => a - b);
}

const repairJob = 'repair-counts';
const repairStateEntity = 'jobState';

/**
 * Where the scheduled count repair stands between invocations (it works through the customers in
 * handle order, a bounded number of processes per invocation): `after`, the last customer done;
 * `current`, the customer being counted, with the shards' versions and counts when it started,
 * what it has counted so far and where its listing goes on.
 */
export const CountRepairState = v.object({
  after: v.optional(v.string()),
  current: v.optional(
    v.object({
      customer: v.string(),
      versions: v.array(v.number()),
      before: v.record(v.string(), v.number()),
      counted: v.array(v.record(v.string(), v.number())),
      processes: v.number(),
      cursor: v.optional(v.record(v.string(), v.unknown())),
    }),
  ),
});
export type CountRepairState = v.InferOutput<typeof CountRepairState>;

/** The count repair's state (strongly consistent: it is the job's own last write). */
export async function readCountRepairState(): Promise<CountRepairState> {
  return (await getItem(keys.jobState(repairJob), CountRepairState, repairStateEntity, true)) ?? {};
}

/** Stores the count repair's state for the next invocation. */
export async function writeCountRepairState(state: CountRepairState): Promise<void> {
  await putItem(toItem(keys.jobState(repairJob), repairStateEntity, state));
}

import { TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { db } from './client.ts';
import { keys } from './keys.ts';
import { nextId } from './repositories/counters.ts';
import { tableName } from './table.ts';

/** One item of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Why a transaction was cancelled, per item (`ConditionalCheckFailed`, `TransactionConflict`, `None`). */
export function cancellationCodes(error: unknown): string[] | undefined {
  if ((error as Error)?.name !== 'TransactionCanceledException') return undefined;
  return ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/**
 * Runs a transaction, retrying when it only lost a race (TransactionConflict), so that concurrent
 * requests end in a definite answer: committed, or cancelled by a condition. Up to 10 attempts with
 * jittered backoff (at most about 1.3 s apart): a customer's concurrent process writes share its
 * 8 count shards (repositories/process-counts.ts), so a burst of them conflicts more than once.
 */
export async function transact(items: TransactItem[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      const conflictOnly = codes?.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
      if (!conflictOnly || attempt >= 9) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20 * 2 ** Math.min(attempt, 6)));
    }
  }
}

/**
 * One conditional update, alone (one UpdateItem) or, with items to commit along (a notification,
 * an Idempotency-Key's answer), first in one transaction with them. False when its condition
 * failed: nothing was written.
 */
export async function conditionalUpdate(update: UpdateCommandInput, along: TransactItem[] = []): Promise<boolean> {
  try {
    if (along.length > 0) await transact([{ Update: update } as TransactItem, ...along]);
    else await db().send(new UpdateCommand(update));
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** A Put that creates an item: the transaction is cancelled (ConditionalCheckFailed) when one with its key exists. */
export function putNew(item: Record<string, unknown>): TransactItem {
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** A Put that replaces an item: the transaction is cancelled when none with its key exists. */
export function putExisting(item: Record<string, unknown>): TransactItem {
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_exists(pk)' } };
}

/** A check that no item has this key: the transaction is cancelled when one does. */
export function checkAbsent(key: { pk: string; sk: string }): TransactItem {
  return { ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The key of an id sequence's counter item, to read it along with a request's other items. */
export function counterKey(sequence: string): { pk: string; sk: string } {
  const { pk, sk } = keys.counter(sequence);
  return { pk, sk };
}

/** A counter item's value as read (0 when the sequence has not started). */
export function counterValue(item: Record<string, unknown> | undefined): number {
  return item === undefined ? 0 : v.parse(v.pipe(v.number(), v.integer(), v.minValue(0)), item.value ?? 0);
}

/** The update claiming `current + 1` of a sequence, valid only while the counter still holds `current`. */
function claim(sequence: string, current: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: counterKey(sequence),
      UpdateExpression: 'SET #value = :next, entity = :entity',
      ConditionExpression: current === 0 ? 'attribute_not_exists(#value)' : '#value = :current',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':next': current + 1, ':entity': 'counter', ...(current === 0 ? {} : { ':current': current }) },
    },
  };
}

/**
 * Writes `build(ids)` in one transaction that also allocates the next id of each sequence, so the
 * allocation costs no call of its own: the counters were read with the request's other items
 * (`current`), and the transaction claims `current + 1` of each under the condition that no one
 * else has meanwhile. Ids stay unique and increasing (counters.ts).
 *
 * When another writer claimed first (a claim's condition failed or lost a race), the ids are
 * allocated the ordinary way (one atomic ADD each, never contended away) and the transaction is
 * written again without claims, whatever the caller's own items reported (the winner may hold the
 * claimed id). When every claim held, a failed condition of the caller's own items is thrown with
 * its cancellation reasons at the same positions as in `build(ids)`. `build` may first write what
 * no reader sees yet (a new zone's records, named only by the header the transaction creates).
 */
export async function transactWithIds<S extends string>(
  current: Record<S, number>,
  build: (ids: Record<S, number>) => TransactItem[] | Promise<TransactItem[]>,
): Promise<Record<S, number>> {
  const sequences = Object.keys(current) as S[];
  const claimed = Object.fromEntries(sequences.map((s) => [s, current[s] + 1])) as Record<S, number>;
  const items = await build(claimed);
  try {
    await db().send(new TransactWriteCommand({ TransactItems: [...items, ...sequences.map((s) => claim(s, current[s]))] }));
    return claimed;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes === undefined) throw error;
    const own = codes.slice(0, items.length);
    const claims = codes.slice(items.length);
    // A lost claim comes first: the winner may already have written items keyed by the claimed id
    // (a process), so the caller's own conditions can fail for that reason alone. The retry with
    // fresh ids below reports any condition that fails on its own merits.
    const lostClaim = claims.some((c) => c === 'ConditionalCheckFailed' || c === 'TransactionConflict');
    if (!lostClaim && own.includes('ConditionalCheckFailed')) throw error;
    if (!lostClaim && !own.includes('TransactionConflict')) throw error;
  }
  const allocated = {} as Record<S, number>;
  for (const s of sequences) allocated[s] = await nextId(s);
  await transact(await build(allocated));
  return allocated;
}

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { readItems } from '../shared/db/items.ts';
import { tableName } from '../shared/db/table.ts';
import { counterKey, counterValue, transactWithIds } from '../shared/db/transactions.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

/** Ids claimed inside a transaction (shared/db/transactions.ts), alone and under contention. */
describe('transactWithIds', () => {
  const put = (sequence: string, id: number, condition?: string) => [
    {
      Put: {
        TableName: tableName(),
        Item: { pk: `TXTEST#${sequence}#${id}`, sk: 'TXTEST', entity: 'txtest', id },
        ...(condition ? { ConditionExpression: condition } : {}),
      },
    },
  ];
  const current = async (sequence: string) => counterValue((await readItems({ c: counterKey(sequence) }, { consistent: true })).c);

  it('claims the next id in the same transaction: one call, and the counter moves on', async () => {
    const { result, calls } = await recordTableCalls(() => transactWithIds({ 'tx-a': 0 }, ({ 'tx-a': id }) => put('a', id)));
    expect(result).toEqual({ 'tx-a': 1 });
    expect(calls).toEqual(['TransactWriteItemsCommand']);
    expect(await current('tx-a')).toBe(1);
    expect((await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'TXTEST#a#1', sk: 'TXTEST' } }))).Item).toMatchObject({
      id: 1,
    });
  });

  it('gives 12 concurrent writers distinct ids from a stale read, falling back to an atomic allocation when a claim is lost', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => transactWithIds({ 'tx-b': 0 }, ({ 'tx-b': id }) => put('b', id))));
    const values = ids.map((r) => r['tx-b']).sort((x, y) => x - y);
    expect(values).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await current('tx-b')).toBe(12);
  });

  it('gives writers distinct ids when their items are keyed by the id and guarded (the winner holds the claimed id)', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, () => transactWithIds({ 'tx-d': 0 }, ({ 'tx-d': id }) => put('d', id, 'attribute_not_exists(pk)'))),
    );
    expect(ids.map((r) => r['tx-d']).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await current('tx-d')).toBe(20);
  });

  it("rethrows a failed condition of the caller's own items without allocating an id", async () => {
    await transactWithIds({ 'tx-c': 0 }, ({ 'tx-c': id }) => put('c', id));
    const error = await transactWithIds({ 'tx-c': 1 }, () => put('c', 1, 'attribute_not_exists(pk)')).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TransactionCanceledException');
    expect(await current('tx-c')).toBe(1);
  });
});

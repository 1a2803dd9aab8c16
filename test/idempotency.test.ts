import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import type { CommitWith } from '../shared/db/repositories/commit-with.ts';
import { claimKey, readKey } from '../shared/db/repositories/idempotency.ts';
import { tableName } from '../shared/db/table.ts';
import { transact } from '../shared/db/transactions.ts';
import { ValidationError } from '../shared/errors.ts';
import { idempotent, leaseMs, requestHashOf } from '../shared/http/idempotency.ts';
import type { Reply } from '../shared/http/response.ts';

/**
 * The Idempotency-Key mechanism itself (shared/http/idempotency.ts over
 * shared/db/repositories/idempotency.ts), against DynamoDB Local, with an operation whose outcome
 * is a counter and whose transaction writes one marker item: what the transfer and renew routes
 * do with their own transactions (test/exactly-once.test.ts takes them through their handlers).
 */

const request = { path: { domainName: 'example.com' }, query: {}, body: { customer: 'demo', period: 12 } };
const alice = { customer: 'demo', user: 'alice' };

/** An operation that counts its runs and commits one item per run, with what it is handed, in one transaction. */
function operation(
  answer: (n: number) => Reply = (n) => ({ status: 202, body: { run: n, note: 'z before a' }, headers: { 'x-process-id': String(n) } }),
) {
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    run: async (commitWith: CommitWith<number>) => {
      const n = ++runs;
      const marker = { pk: `TEST#${randomUUID()}`, sk: 'TEST', entity: 'test', run: n };
      await transact([{ Put: { TableName: tableName(), Item: marker } }, ...commitWith(n).items]);
      return n;
    },
    respond: (n: number) => answer(n),
  };
}

const keyed = (key: string, extra: Partial<Parameters<typeof idempotent>[0]> = {}) => ({
  operation: 'test',
  principal: alice,
  headers: { 'idempotency-key': key },
  request,
  ...extra,
});

describe('idempotent()', () => {
  it('runs the operation every time when no Idempotency-Key is sent', async () => {
    const op = operation();
    await idempotent({ ...keyed('x'), headers: {} }, op.run, op.respond);
    const second = await idempotent({ ...keyed('x'), headers: {} }, op.run, op.respond);
    expect(op.runs).toBe(2);
    expect(second).toEqual({ status: 202, body: { run: 2, note: 'z before a' }, headers: { 'x-process-id': '2' } });
  });

  it('replays the first answer, as the same bytes, for a retry with the same key and request, without running again', async () => {
    const op = operation();
    const first = await idempotent(keyed('key-replay-1'), op.run, op.respond);
    const second = await idempotent(keyed('key-replay-1'), op.run, op.respond);
    expect(op.runs).toBe(1);
    const body = JSON.stringify({ run: 1, note: 'z before a' });
    const contentType = 'application/json; charset=utf-8';
    expect(first).toEqual({ status: 202, body, contentType, headers: { 'x-process-id': '1' } });
    expect(second).toEqual({ status: 202, body, contentType, headers: { 'x-process-id': '1', 'Idempotent-Replayed': 'true' } });
  });

  it('keeps the answer in the record of the key, in a partition of its own, committed with the work and kept 24 hours', async () => {
    const op = operation();
    const before = Math.floor(Date.now() / 1000);
    await idempotent(keyed('key-stored'), op.run, op.respond);
    const hash = createHash('sha256')
      .update(JSON.stringify(['demo', 'alice', 'key-stored']))
      .digest('base64url');
    const out = await db().send(new GetCommand({ TableName: tableName(), Key: { pk: `IDEMPOTENCY#test#${hash}`, sk: 'IDEMPOTENCY' } }));
    expect(out.Item).toMatchObject({
      entity: 'idempotencyKey',
      state: 'COMPLETED',
      requestHash: requestHashOf(request),
      answer: { status: 202, headers: { 'x-process-id': '1' }, body: '{"run":1,"note":"z before a"}' },
    });
    expect(out.Item?.expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(out.Item?.expiresAt).toBeLessThanOrEqual(before + 24 * 3600 + 5);
  });

  it('refuses the same key with a different request with 400 ValidationError on Idempotency-Key', async () => {
    const op = operation();
    await idempotent(keyed('key-mismatch'), op.run, op.respond);
    const other = { ...request, body: { customer: 'demo', period: 24 } };
    const error = await idempotent(keyed('key-mismatch', { request: other }), op.run, op.respond).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      status: 400,
      type: 'ValidationError',
      extra: { violations: [{ field: 'Idempotency-Key', message: 'was already used with a different request' }] },
    });
    expect(op.runs).toBe(1);
  });

  it('takes the same request in another key order for the same request', async () => {
    const op = operation();
    await idempotent(keyed('key-order'), op.run, op.respond);
    const reordered = { body: { period: 12, customer: 'demo' }, query: {}, path: { domainName: 'example.com' } };
    const replay = await idempotent(keyed('key-order', { request: reordered }), op.run, op.respond);
    expect(replay.headers?.['Idempotent-Replayed']).toBe('true');
    expect(op.runs).toBe(1);
  });

  it('keeps keys apart per customer, per user and per operation', async () => {
    const op = operation();
    await idempotent(keyed('key-scoped'), op.run, op.respond);
    await idempotent(keyed('key-scoped', { principal: { customer: 'other', user: 'alice' } }), op.run, op.respond);
    await idempotent(keyed('key-scoped', { principal: { customer: 'demo', user: 'bob' } }), op.run, op.respond);
    await idempotent(keyed('key-scoped', { operation: 'other-op' }), op.run, op.respond);
    expect(op.runs).toBe(4);
  });

  it('releases the key when the operation fails, so a retry runs again', async () => {
    let runs = 0;
    const failing = async (): Promise<number> => {
      runs++;
      throw new ValidationError('nope');
    };
    const op = operation();
    await expect(idempotent(keyed('key-failing'), failing, op.respond)).rejects.toThrow('nope');
    await expect(idempotent(keyed('key-failing'), failing, op.respond)).rejects.toThrow('nope');
    expect(runs).toBe(2);
    expect(await idempotent(keyed('key-failing'), op.run, op.respond)).toMatchObject({ status: 202, headers: { 'x-process-id': '1' } });
  });

  it('lets concurrent duplicates wait for the first and replay its answer', async () => {
    const op = operation();
    const slow = async (commitWith: CommitWith<number>) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return op.run(commitWith);
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => idempotent(keyed('key-concurrent'), slow, op.respond)));
    expect(op.runs).toBe(1);
    for (const answer of answers) {
      expect({ ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': undefined } }).toEqual({
        status: 202,
        body: '{"run":1,"note":"z before a"}',
        contentType: 'application/json; charset=utf-8',
        headers: { 'x-process-id': '1', 'Idempotent-Replayed': undefined },
      });
    }
    expect(answers.filter((a) => a.headers?.['Idempotent-Replayed'] === 'true')).toHaveLength(9);
  });

  it('stores the answer on its own when the operation committed nothing with it, and replays it', async () => {
    let runs = 0;
    const writesNothing = async () => ++runs;
    const respond = (n: number): Reply => ({ status: 200, body: { unchanged: n } });
    const first = await idempotent(keyed('key-alone'), writesNothing, respond);
    const replay = await idempotent(keyed('key-alone'), writesNothing, respond);
    expect(runs).toBe(1);
    expect(first).toEqual({ status: 200, headers: {}, body: '{"unchanged":1}', contentType: 'application/json; charset=utf-8' });
    expect(replay.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(replay.body).toBe(first.body);
  });

  it('takes over a claim whose lease ran out (its attempt died) and runs the request once', async () => {
    const scope = { operation: 'test', ...alice, key: 'key-stale' };
    const dead = { scope, attempt: randomUUID(), requestHash: requestHashOf(request) };
    expect(await claimKey(dead, Date.now() - 1)).toBe(true);
    const op = operation();
    const started = Date.now();
    const answer = await idempotent(keyed('key-stale'), op.run, op.respond);
    expect(Date.now() - started).toBeLessThan(leaseMs);
    expect(answer).toMatchObject({ status: 202, headers: { 'x-process-id': '1' } });
    expect(op.runs).toBe(1);
    expect(await readKey(scope)).toMatchObject({ state: 'COMPLETED', answer: { status: 202 } });
  });

  it('refuses to take over a lapsed claim for a different request: 400 on Idempotency-Key', async () => {
    const scope = { operation: 'test', ...alice, key: 'key-stale-other' };
    const dead = { scope, attempt: randomUUID(), requestHash: requestHashOf({ ...request, body: { customer: 'demo' } }) };
    expect(await claimKey(dead, Date.now() - 1)).toBe(true);
    const op = operation();
    await expect(idempotent(keyed('key-stale-other'), op.run, op.respond)).rejects.toThrow(
      'This Idempotency-Key was already used with a different request.',
    );
    expect(op.runs).toBe(0);
  });

  it('replaces a record left under the key by the earlier Powertools utility (no entity tag) instead of waiting on it', async () => {
    const hash = createHash('sha256')
      .update(JSON.stringify(['demo', 'alice', 'key-legacy']))
      .digest('base64url');
    const Item = {
      pk: `IDEMPOTENCY#test#${hash}`,
      sk: 'IDEMPOTENCY',
      idempotencyStatus: 'INPROGRESS',
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    };
    await db().send(new PutCommand({ TableName: tableName(), Item }));
    const op = operation();
    expect(await idempotent(keyed('key-legacy'), op.run, op.respond)).toMatchObject({ status: 202, headers: { 'x-process-id': '1' } });
    expect(op.runs).toBe(1);
  });

  it('refuses a malformed key with 400 ConstraintViolationException', async () => {
    const op = operation();
    const error = await idempotent(keyed('has space'), op.run, op.respond).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      type: 'ConstraintViolationException',
      extra: { violations: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters without spaces' }] },
    });
    expect(op.runs).toBe(0);
  });
});

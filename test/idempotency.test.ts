import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { tableName } from '../shared/db/table.ts';
import { ValidationError } from '../shared/errors.ts';
import { idempotent } from '../shared/http/idempotency.ts';
import type { Reply } from '../shared/http/response.ts';

const request = { path: { domainName: 'example.com' }, query: {}, body: { customer: 'demo' } };

function counter(reply: (n: number) => Reply = (n) => ({ status: 200, body: { run: n }, headers: { 'x-process-id': String(n) } })) {
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    run: async () => reply(++runs),
  };
}

describe('idempotent()', () => {
  it('runs the operation every time when no Idempotency-Key is sent', async () => {
    const op = counter();
    await idempotent({ operation: 'test', customer: 'demo', headers: {}, request }, op.run);
    const second = await idempotent({ operation: 'test', customer: 'demo', headers: {}, request }, op.run);
    expect(op.runs).toBe(2);
    expect(second).toEqual({ status: 200, body: { run: 2 }, headers: { 'x-process-id': '2' } });
  });

  it('replays the first answer for a retry with the same key and request, without running again', async () => {
    const op = counter();
    const headers = { 'idempotency-key': 'key-replay-1' };
    const first = await idempotent({ operation: 'test', customer: 'demo', headers, request }, op.run);
    const second = await idempotent({ operation: 'test', customer: 'demo', headers, request }, op.run);
    expect(op.runs).toBe(1);
    expect(first).toEqual({ status: 200, body: { run: 1 }, headers: { 'x-process-id': '1' } });
    expect(second).toEqual({ status: 200, body: { run: 1 }, headers: { 'x-process-id': '1', 'Idempotent-Replayed': 'true' } });
  });

  it('stores the record under its own IDEMPOTENCY# partition with the table TTL attribute', async () => {
    const op = counter();
    const before = Math.floor(Date.now() / 1000);
    await idempotent({ operation: 'test', customer: 'demo', headers: { 'idempotency-key': 'key-stored' }, request }, op.run);
    // The hashed key is not ours to compute; find the record through the one we can: a replay exists.
    const replay = await idempotent({ operation: 'test', customer: 'demo', headers: { 'idempotency-key': 'key-stored' }, request }, op.run);
    expect(replay.headers?.['Idempotent-Replayed']).toBe('true');
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256')
      .update(JSON.stringify(['demo', 'key-stored']))
      .digest('base64');
    const out = await db().send(new GetCommand({ TableName: tableName(), Key: { pk: `IDEMPOTENCY#test#${hash}`, sk: 'IDEMPOTENCY' } }));
    expect(out.Item).toMatchObject({ idempotencyStatus: 'COMPLETED', reply: { status: 200, body: { run: 1 } } });
    expect(out.Item?.expiresAt).toBeGreaterThanOrEqual(before + 24 * 3600);
    expect(out.Item?.expiresAt).toBeLessThanOrEqual(before + 24 * 3600 + 5);
  });

  it('refuses the same key with a different request with 400 ValidationError on Idempotency-Key', async () => {
    const op = counter();
    const headers = { 'idempotency-key': 'key-mismatch' };
    await idempotent({ operation: 'test', customer: 'demo', headers, request }, op.run);
    const other = { ...request, body: { customer: 'demo', period: 12 } };
    const error = await idempotent({ operation: 'test', customer: 'demo', headers, request: other }, op.run).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      status: 400,
      type: 'ValidationError',
      extra: { violations: [{ field: 'Idempotency-Key', message: 'was already used with a different request' }] },
    });
    expect(op.runs).toBe(1);
  });

  it('keeps keys apart per customer and per operation', async () => {
    const op = counter();
    const headers = { 'idempotency-key': 'key-scoped' };
    await idempotent({ operation: 'test', customer: 'demo', headers, request }, op.run);
    await idempotent({ operation: 'test', customer: 'other', headers, request }, op.run);
    await idempotent({ operation: 'other-op', customer: 'demo', headers, request }, op.run);
    expect(op.runs).toBe(3);
  });

  it('stores nothing when the operation fails, so a retry runs again', async () => {
    let runs = 0;
    const headers = { 'idempotency-key': 'key-failing' };
    const failing = async (): Promise<Reply> => {
      runs++;
      throw new ValidationError('nope');
    };
    await expect(idempotent({ operation: 'test', customer: 'demo', headers, request }, failing)).rejects.toThrow('nope');
    await expect(idempotent({ operation: 'test', customer: 'demo', headers, request }, failing)).rejects.toThrow('nope');
    expect(runs).toBe(2);
    const ok = await idempotent({ operation: 'test', customer: 'demo', headers, request }, async () => ({
      status: 202,
      body: { fine: true },
    }));
    expect(ok).toEqual({ status: 202, body: { fine: true } });
  });

  it('lets concurrent duplicates wait for the first and replay its answer', async () => {
    let runs = 0;
    const slow = async (): Promise<Reply> => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { status: 202, body: { processId: 42 }, headers: { 'x-process-id': '42' } };
    };
    const headers = { 'idempotency-key': 'key-concurrent' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => idempotent({ operation: 'test', customer: 'demo', headers, request }, slow)),
    );
    expect(runs).toBe(1);
    for (const answer of answers) {
      expect({ ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': undefined } }).toEqual({
        status: 202,
        body: { processId: 42 },
        headers: { 'x-process-id': '42', 'Idempotent-Replayed': undefined },
      });
    }
    expect(answers.filter((a) => a.headers?.['Idempotent-Replayed'] === 'true')).toHaveLength(9);
  });

  it('refuses a malformed key with 400 ConstraintViolationException', async () => {
    const op = counter();
    const error = await idempotent(
      { operation: 'test', customer: 'demo', headers: { 'idempotency-key': 'has space' }, request },
      op.run,
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      type: 'ConstraintViolationException',
      extra: { violations: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters without spaces' }] },
    });
    expect(op.runs).toBe(0);
  });
});

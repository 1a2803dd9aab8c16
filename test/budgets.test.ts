import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as transferHandler } from '../functions/transfer/handler.ts';
import { createGateway, functionTimeoutFromEnv, lambdaContext } from '../infra/local/gateway.ts';
import { db } from '../shared/db/client.ts';
import { functionTimeoutSeconds } from '../shared/http/function-budget.ts';
import { apiEvent, demoKey } from './support/api.ts';
import { beforeFirstCall } from './support/sdk-calls.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Waits fit the function that waits (shared/http/function-budget.ts): a keyed retry waiting for
 * its twin answers 503 with Retry-After while its own function still has time to answer, and the
 * local gateway stops waiting for a handler at the function's timeout, as Lambda does.
 */

describe('a keyed retry waits within its function', () => {
  it('answers 503 with Retry-After before its own function runs out, while its twin still holds the key', { timeout: 30_000 }, async () => {
    const name = `budget-${process.pid}.com`;
    await sandboxDomain(name);
    const key = crypto.randomUUID();
    const headers = { 'Idempotency-Key': key };
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding: () => void = () => undefined;
    const twinHolds = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // The first attempt stops just before its transaction, holding the key, until released.
    const remove = beforeFirstCall(
      (command, partitions) => command === 'TransactWriteItemsCommand' && partitions.some((p) => p.startsWith('PROCESS#')),
      async () => {
        holding();
        await held;
      },
    );
    try {
      const first = transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { headers });
      await twinHolds;
      // The retry, in a function with 2.5 s left (as its Lambda context says).
      const budgetMs = 2500;
      const event = apiEvent({
        method: 'POST',
        path: `/v2/domains/${name}/transfer`,
        resource: '/v2/domains/{domainName}/transfer',
        pathParameters: { domainName: name },
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ ...demoBody, authcode: 'TEST-CODE' }),
      });
      const started = Date.now();
      const retry = (await transferHandler(
        event,
        lambdaContext('transfer', event.requestContext.requestId, budgetMs),
      )) as APIGatewayProxyResult;
      const tookMs = Date.now() - started;
      expect(retry.statusCode).toBe(503);
      expect(retry.headers?.['Retry-After']).toBe('2');
      expect(JSON.parse(retry.body).message).toBe('A request with this Idempotency-Key is still in progress; retry later.');
      expect(tookMs).toBeLessThan(budgetMs);
      release();
      expect((await first).status).toBe(202);
    } finally {
      release();
      remove();
    }
  });
});

describe('the local gateway gives a handler the stack’s timeout', () => {
  it('gives a handler the stack’s timeout by default, and no more (LOCAL_FUNCTION_TIMEOUT_MS, which the suite scales by the machine’s contention, aside)', () => {
    const suite = process.env.LOCAL_FUNCTION_TIMEOUT_MS;
    delete process.env.LOCAL_FUNCTION_TIMEOUT_MS;
    try {
      expect(functionTimeoutFromEnv()).toBe(functionTimeoutSeconds * 1000);
      expect(lambdaContext('transfer', crypto.randomUUID()).getRemainingTimeInMillis()).toBeLessThanOrEqual(functionTimeoutSeconds * 1000);
    } finally {
      process.env.LOCAL_FUNCTION_TIMEOUT_MS = suite;
    }
  });

  it('stops a handler at its timeout', async () => {
    const gateway = createGateway({ functionTimeoutMs: 300 });
    const name = `stall-${crypto.randomUUID()}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    db().middlewareStack.add(
      (next) => async (args) => {
        // The provider's read only (the key's lookup goes on as usual).
        const pk = (args.input as { Key?: { pk?: string } }).Key?.pk;
        if (pk?.startsWith('PROVIDER#')) await held;
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const res = await gateway.handle({
        method: 'GET',
        url: '/v2/providers/REGISTRY/sidn/info',
        headers: { Authorization: `ApiKey ${demoKey}` },
      });
      // The function answers itself as its time runs out (middy's early timeout, the pipeline's 503),
      // as it does in Lambda, instead of after the 29 s the local gateway used to give it.
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toMatchObject({ type: 'ProviderUnavailable' });
    } finally {
      release();
      db().middlewareStack.remove(name);
    }
  });

  it("answers a function's own early 503 as a 503 when the process stalled past the function's deadline (issue 32 item 6)", async () => {
    const gateway = createGateway({ functionTimeoutMs: 1000 });
    const name = `stall-loop-${crypto.randomUUID()}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    db().middlewareStack.add(
      (next) => async (args) => {
        const pk = (args.input as { Key?: { pk?: string } }).Key?.pk;
        if (pk?.startsWith('PROVIDER#')) await held;
        return next(args);
      },
      { step: 'initialize', name },
    );
    // Another function of the same process holds the event loop across this one's deadline (one
    // process serves every local function; in Lambda each has its own).
    const stall = setTimeout(() => {
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // busy
      }
    }, 900);
    try {
      const res = await gateway.handle({
        method: 'GET',
        url: '/v2/providers/REGISTRY/sidn/info',
        headers: { Authorization: `ApiKey ${demoKey}` },
      });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toMatchObject({ type: 'ProviderUnavailable' });
    } finally {
      clearTimeout(stall);
      release();
      db().middlewareStack.remove(name);
    }
  });
});

describe('a function that answers 503 itself under load (issue 32 item 6)', () => {
  it('reaches the client as a 503: 20 resends started apart, whose table calls stall past their deadlines while the process stalls across them all', {
    timeout: 60_000,
  }, async () => {
    const name = `stall-resend-${process.pid}.net`;
    await sandboxDomain(name, {
      transfer: {
        stages: [
          { status: 'pendingfoa', seconds: 3600 },
          { status: 'approved', seconds: 3600 },
        ],
        outcome: 'completed',
      },
    });
    const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    expect(started.status).toBe(202);
    const id = started.body.processId as number;
    const timeoutMs = 1500;
    const gateway = createGateway({ functionTimeoutMs: timeoutMs });
    const key = `stall-all-${crypto.randomUUID()}`;
    let stalling = true;
    // Every table call naming the process waits past the deadline while stalling (the function then answers its own 503).
    db().middlewareStack.add(
      (next) => async (args) => {
        if (stalling && JSON.stringify(args.input ?? {}).includes(`PROCESS#${id}`))
          await new Promise((resolve) => setTimeout(resolve, 3_000));
        return next(args);
      },
      { step: 'initialize', name: key },
    );
    const requests: Promise<{ status: number; body: string }>[] = [];
    let firstStart = 0;
    try {
      // The resends start 10 ms apart (as requests arrive), so their deadlines differ; the process is
      // then held busy across all of them (one process serves every local function; under load its
      // timers run late, and many at once).
      for (let i = 0; i < 20; i++) {
        if (i === 0) firstStart = Date.now();
        requests.push(
          gateway.handle({
            method: 'POST',
            url: `/v2/processes/${id}/resend`,
            headers: { Authorization: `ApiKey ${demoKey}`, 'Idempotency-Key': crypto.randomUUID() },
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const busyFrom = firstStart + timeoutMs - 300;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, busyFrom - Date.now())));
      const until = Date.now() + 1_000;
      while (Date.now() < until) {
        // busy across every deadline
      }
      const answers = await Promise.all(requests);
      const statuses = answers.map((a) => a.status);
      expect(statuses).toEqual(Array(20).fill(503));
      for (const a of answers) expect(JSON.parse(a.body)).toMatchObject({ type: 'ProviderUnavailable' });
    } finally {
      stalling = false;
      db().middlewareStack.remove(key);
    }
  });
});

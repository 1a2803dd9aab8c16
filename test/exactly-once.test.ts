import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { leaseMs } from '../shared/http/idempotency.ts';
import { type ApiResponse, call } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { recordTableCalls } from './support/sdk-calls.ts';
import { demoBody, processesOf, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Exactly once across crashes (docs/reliability.md): the Idempotency-Key's answer commits in the
 * same transaction as the work, through the real handlers on DynamoDB Local. A crash is a function
 * that stops at a point and never goes on: simulated at the SDK client by a call that never
 * returns (before or after DynamoDB ran it). The crash test (test/crash.test.ts) does it for real
 * with SIGKILL on `npm start`.
 */

const csr = makeCsr({ cn: 'www.demo-shop.nl' });
const body = { ...demoBody, authcode: 'TEST-CODE' };
const key = () => ({ 'Idempotency-Key': crypto.randomUUID() });

/** What a replay must repeat of a first answer: everything but the request id and the replay mark. */
function wire(res: ApiResponse) {
  const { 'x-request-id': _id, 'idempotent-replayed': _replayed, date: _date, ...headers } = res.headers;
  return { status: res.status, headers, raw: res.raw };
}

/**
 * Intercepts the table calls `when` picks, at the SDK client: `around` runs in place of the call,
 * with `send` doing the call itself. Answers the function that removes the interception.
 */
function intercept(when: (command: string, input: string) => boolean, around: (send: () => Promise<unknown>) => Promise<unknown>) {
  const name = `intercept-${crypto.randomUUID()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (!when(String(context.commandName), JSON.stringify(args.input))) return next(args);
      return (await around(() => next(args))) as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

const never = () => new Promise<never>(() => undefined);
const transactionOf = (name: string) => (command: string, input: string) => command.startsWith('TransactWrite') && input.includes(name);

async function processesFor(name: string) {
  return (await processesOf('demo')).filter((p) => p.identifier === name);
}

describe('Idempotency-Key: the answer commits with the work', () => {
  it('writes the transfer, its pending state and the key with its answer in one transaction, after one claim of the key', async () => {
    const name = `once-commit.com`;
    await sandboxDomain(name);
    const { result, details } = await recordTableCalls(() => transfer(name, body, { headers: key() }));
    expect(result.status).toBe(202);
    const writes = details.filter((d) => !/^(Get|BatchGet|Query)/.test(d.command));
    expect(writes.map((d) => d.command)).toEqual(['PutItemCommand', 'TransactWriteItemsCommand']);
    expect(writes[0]?.partitions).toEqual([expect.stringMatching(/^IDEMPOTENCY#transfer#/)]);
    expect(writes[1]?.partitions).toEqual(
      expect.arrayContaining([`PROCESS#${result.headers['x-process-id']}`, `DOMAIN#${name}`, writes[0]?.partitions[0]]),
    );
  });

  it('writes the renewal and the key with its answer in one transaction, after one claim of the key', async () => {
    const certificate = await testCertificate();
    const { result, details } = await recordTableCalls(() => renew(certificate.id, { period: 12, csr }, { headers: key() }));
    expect(result.status).toBe(202);
    const writes = details.filter((d) => !/^(Get|BatchGet|Query)/.test(d.command));
    expect(writes.map((d) => d.command)).toEqual(['PutItemCommand', 'TransactWriteItemsCommand']);
    expect(writes[1]?.partitions).toEqual(
      expect.arrayContaining([`CERTIFICATE#${certificate.id}`, `PROCESS#${result.headers['x-process-id']}`, writes[0]?.partitions[0]]),
    );
  });
});

describe('Idempotency-Key: replays are the first answer, byte for byte', () => {
  it('replays a pending transfer (202) and one completed at once (200) with the same status, headers and bytes', async () => {
    const pending = `once-bytes.com`;
    const now = `once-bytes-now.com`;
    await sandboxDomain(pending);
    await sandboxDomain(now, { transfer: { stages: [], outcome: 'completed' } });
    for (const [name, status] of [
      [pending, 202],
      [now, 200],
    ] as const) {
      const headers = key();
      const first = await transfer(name, { ...body, zone: { service: 'BASIC' }, autoRenew: false }, { headers });
      const replay = await transfer(name, { autoRenew: false, zone: { service: 'BASIC' }, ...body }, { headers });
      expect(first.status).toBe(status);
      expect(wire(replay)).toEqual(wire(first));
      expect(first.headers['x-process-id']).toBe(String(first.body.processId));
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
    }
  });

  it('replays a renewal (202) with the same status, headers and bytes', async () => {
    const certificate = await testCertificate();
    const headers = key();
    const first = await renew(certificate.id, { period: 12, csr }, { headers });
    const replay = await renew(certificate.id, { period: 12, csr }, { headers });
    expect(first.status).toBe(202);
    expect(wire(replay)).toEqual(wire(first));
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('Idempotency-Key on cancel and resend: the answer commits with the work, replays are the same bytes', () => {
  /** Writes of a keyed request: the key's claim, then exactly one write holding the work and the key. */
  function expectOneWrite(
    details: { command: string; partitions: string[]; input?: Record<string, unknown> }[],
    work: string,
    operation: string,
  ) {
    // A resend's slot, taken before the registry or the authority is asked, is no write of the work:
    // it bounds what the outside party is asked (shared/db/repositories/effect-slots.ts).
    const slot = (d: { input?: Record<string, unknown> }) =>
      String((d.input?.Key as { sk?: unknown } | undefined)?.sk ?? '').startsWith('SLOTS#');
    const writes = details.filter(
      (d) => !/^(Get|BatchGet|Query)/.test(d.command) && !d.partitions.some((p) => p.startsWith('REGISTRY')) && !slot(d),
    );
    expect(writes.map((d) => d.command)).toEqual(['PutItemCommand', 'TransactWriteItemsCommand']);
    expect(writes[0]?.partitions).toEqual([expect.stringMatching(new RegExp(`^IDEMPOTENCY#${operation}#`))]);
    expect(writes[1]?.partitions).toEqual(expect.arrayContaining([work, writes[0]?.partitions[0]]));
  }

  it('cancels a waiting transfer and a certificate request in one transaction with the key, and replays each byte for byte', async () => {
    const name = 'once-cancel.com';
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pending', seconds: 86_400 }], outcome: 'completed' } });
    const started = await transfer(name, body);
    const certificate = await testCertificate();
    const renewal = await renew(certificate.id, { period: 12, csr });
    for (const id of [started.headers['x-process-id'], renewal.headers['x-process-id']]) {
      const headers = key();
      const { result: first, details } = await recordTableCalls(() => call('DELETE', `/v2/processes/${id}`, { headers }));
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('CANCELLED');
      expectOneWrite(details, `PROCESS#${id}`, 'cancel');
      const replay = await call('DELETE', `/v2/processes/${id}`, { headers });
      expect(wire(replay)).toEqual(wire(first));
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
  });

  it("resends a transfer's FOA and a certificate request's DCV e-mails in one write with the key, and replays each byte for byte", async () => {
    const name = 'once-resend.com';
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pendingfoa', seconds: 86_400 }], outcome: 'completed' } });
    const started = await transfer(name, body);
    const dcv = [{ commonName: 'www.demo-shop.nl', type: 'EMAIL', email: 'admin@demo-shop.nl' }];
    const renewal = await renew((await testCertificate()).id, { period: 12, csr, dcv });
    expect(renewal.status).toBe(202);
    for (const id of [started.headers['x-process-id'], renewal.headers['x-process-id']]) {
      const headers = key();
      const { result: first, details } = await recordTableCalls(() => call('POST', `/v2/processes/${id}/resend`, { headers }));
      expect(first.status).toBe(200);
      expectOneWrite(details, `PROCESS#${id}`, 'resend');
      const replay = await call('POST', `/v2/processes/${id}/resend`, { headers });
      expect(wire(replay)).toEqual(wire(first));
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
  });
});

describe('Idempotency-Key: a crash at any point', () => {
  it('after the transaction committed (the function never answered): the retry gets the first answer, with its x-process-id', async () => {
    const name = `once-died-after.com`;
    await sandboxDomain(name);
    const headers = key();
    let committed!: () => void;
    const commit = new Promise<void>((resolve) => {
      committed = resolve;
    });
    const remove = intercept(transactionOf(name), async (send) => {
      await send();
      committed();
      return never();
    });
    void transfer(name, body, { headers });
    await commit;
    remove();
    const [recorded] = await processesFor(name);
    const retry = await transfer(name, body, { headers });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['x-process-id']).toBe(String(recorded?.id));
    expect(retry.body).toMatchObject({ domainName: name, status: 'pending', processId: recorded?.id });
    expect(wire(await transfer(name, body, { headers }))).toEqual(wire(retry));
    expect(await processesFor(name)).toHaveLength(1);
  });

  it('after the transaction committed but its call failed on the way back: the first answer, not a 503, and replays of it', async () => {
    const name = `once-lost-answer.com`;
    await sandboxDomain(name);
    const headers = key();
    const remove = intercept(transactionOf(name), async (send) => {
      await send();
      throw Object.assign(new Error('Connection timed out after 3000 ms'), { name: 'TimeoutError' });
    });
    let first: ApiResponse;
    try {
      first = await transfer(name, body, { headers });
    } finally {
      remove();
    }
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const [recorded] = await processesFor(name);
    expect(first.headers['x-process-id']).toBe(String(recorded?.id));
    expect(wire(await transfer(name, body, { headers }))).toEqual(wire(first));
    expect(await processesFor(name)).toHaveLength(1);
  });

  it('before the transaction (the function died holding the key): the retry takes the lapsed key over and runs once; the dead attempt, woken, records nothing and answers the same', {
    timeout: 60_000,
  }, async () => {
    const name = `once-died-before.com`;
    await sandboxDomain(name);
    const headers = key();
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let first = true;
    // The first attempt stops before its transaction; its lease renewals stop with it.
    const removeTransaction = intercept(transactionOf(name), async (send) => {
      if (!first) return send();
      first = false;
      held();
      await woken;
      return send();
    });
    const removeRenewals = intercept(
      (command, input) => command.startsWith('Update') && input.includes('IDEMPOTENCY#transfer#'),
      async (send) => {
        await woken;
        return send();
      },
    );
    try {
      const dead = transfer(name, body, { headers });
      await holding;
      const started = Date.now();
      const retry = await transfer(name, body, { headers });
      // It waited for the lease to lapse, not for the 30 s the key used to be blocked.
      expect(Date.now() - started).toBeLessThan(leaseMs + 5000);
      expect(retry.status).toBe(202);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      wake();
      const late = await dead;
      expect(wire(late)).toEqual(wire(retry));
      expect(late.headers['idempotent-replayed']).toBe('true');
      const processes = await processesFor(name);
      expect(processes.map((p) => p.id)).toEqual([Number(retry.headers['x-process-id'])]);
    } finally {
      wake();
      removeTransaction();
      removeRenewals();
    }
  });
});

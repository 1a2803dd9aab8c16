import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as retryHandler } from '../functions/webhook-retry/handler.ts';
import { runJob } from '../infra/local/jobs.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { queryPartition } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { getNotification, notificationWrites } from '../shared/db/repositories/notifications.ts';
import { firstWaitingDelivery, listDeadLetters, removeDelivery } from '../shared/db/repositories/webhook-deliveries.ts';
import { tableName } from '../shared/db/table.ts';
import { transact } from '../shared/db/transactions.ts';
import { functionTimeoutSeconds } from '../shared/http/function-budget.ts';
import type { NotificationRecord } from '../shared/model/notification.ts';
import { postSigned } from '../shared/notifications/post.ts';
import { streamConsumers } from '../shared/routes.ts';
import { toWireTime } from '../shared/time.ts';
import { call, otherKey } from './support/api.ts';
import { beforeFirstCall, failCalls } from './support/sdk-calls.ts';
import { withTableStream } from './support/table-stream.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

/**
 * Webhook delivery against real receivers on this machine: every request is verified with the
 * Standard Webhooks library and the real API's Signature; the stream consumer is fed from
 * DynamoDB Local's stream as Lambda feeds it; the retry lane is the scheduled job's handler.
 */

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver: records every request, and answers as `answer` says (or holds it until released). */
class Receiver {
  readonly received: Received[] = [];
  answer: (r: Received, res: ServerResponse) => void = (_r, res) => res.writeHead(204).end();
  private server: Server | undefined;
  private held: ServerResponse[] = [];
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(r);
        this.answer(r, res);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  hold(): void {
    this.answer = (_r, res) => this.held.push(res);
  }
  release(): void {
    for (const res of this.held.splice(0)) res.writeHead(204).end();
  }
  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const demo = new Receiver();
const other = new Receiver();
let secret = '';
/** The secret the real API's `Signature` header is made with: the previous one through a rotation's overlap. */
let signatureSecret = '';
let feeder: StreamFeeder;
const consumer = streamConsumers.find((c) => c.id === 'webhook-deliver');
const jobContext = { awsRequestId: 'webhooks', functionName: 'webhook-retry' } as Context;
const retryAt = (at: Date) => retryHandler({ time: at.toISOString() } as unknown as ScheduledEvent, jobContext);

/**
 * Verifies a request as a receiver would: Standard Webhooks with every secret given, and the real
 * API's Signature with the secret it is made with (the previous one through a rotation's overlap).
 */
function verify(r: Received, secrets: string[], held = signatureSecret): unknown {
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, val]) => [k, String(val)]));
  const results = secrets.map((s) => new Webhook(s).verify(r.body, headers));
  expect(r.headers.signature).toBe(createHmac('sha256', Buffer.from(held, 'utf8')).update(r.body).digest('base64'));
  return results[0];
}

beforeAll(async () => {
  process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
  process.env.WEBHOOK_FIRST_ATTEMPT_MS = '500';
  await demo.start();
  await other.start();
  if (!consumer) throw new Error('no webhook-deliver stream consumer');
  feeder = await startStreamFeeder({ tableName: tableName(), consumers: [consumer], pollIntervalMs: 25, retryDelayMs: 10, log: () => {} });
  const registered = await call('PUT', '/v2/customers/demo/webhook', { body: { url: demo.url } });
  expect(registered.status).toBe(201);
  secret = registered.body.secret;
  signatureSecret = secret;
  await feeder.drain();
});

afterAll(async () => {
  await feeder?.stop();
  await demo.stop();
  await other.stop();
  delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
  delete process.env.WEBHOOK_FIRST_ATTEMPT_MS;
});

afterEach(() => {
  demo.answer = (_r, res) => res.writeHead(204).end();
  demo.received.length = 0;
  other.received.length = 0;
});

/** Each test waits on DynamoDB Local's stream a few times (a poll loop), which a busy machine slows down. */
const streamTestTimeout = 60_000;

let serial = 0;
/** Writes a notification for `customer` the way a state change does (the outbox's items, in a transaction of their own). */
async function writeNotification(customer: string, message = 'test'): Promise<NotificationRecord> {
  const n: NotificationRecord = {
    id: 900_000_000 + process.pid * 10 + ++serial * 1000,
    customer,
    fireDate: toWireTime(new Date()),
    message,
    eventType: 'TransferDomainEvent',
    notificationType: 'TransferDomainNotification',
    isAsync: true,
  };
  await transact(notificationWrites(n));
  return n;
}

describe('delivery: signed, in order, exactly the notifications of the queue', { timeout: streamTestTimeout }, () => {
  it("delivers a transfer's lifecycle in order, each verified with the Standard Webhooks algorithm and the Signature header", async () => {
    const name = `hook-${process.pid}.com`;
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pendingfoa', seconds: 3600 }], outcome: 'completed' } });
    const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    await poll(plus(started.body.requestedDate, 3660));
    await feeder.drain();
    const bodies = demo.received.map((r) => verify(r, [secret]) as NotificationRecord).filter((n) => n.process === started.body.processId);
    expect(bodies.map((n) => n.statusDetail)).toEqual(['pendingfoa', 'completed']);
    for (const r of demo.received) {
      const n = JSON.parse(r.body) as NotificationRecord;
      expect(r.headers['webhook-id']).toBe(`msg_${n.id}`);
      expect(r.headers['content-type']).toBe('application/json');
      expect((await getNotification('demo', n.id))?.deliveryDate).toEqual(expect.any(String));
    }
    const polled = await call('GET', `/v2/customers/demo/notifications?process=${started.body.processId}`);
    expect(polled.body.entities.every((n: { deliveryDate?: string }) => n.deliveryDate !== undefined)).toBe(true);
  });

  it('signs with both secrets during a rotation', async () => {
    const rotated = (await call('POST', '/v2/customers/demo/webhook/rotate')).body.secret as string;
    await writeNotification('demo');
    await feeder.drain();
    const [r] = demo.received;
    expect(String(r?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // The real API's Signature holds one signature: the previous secret's, which the receiver already holds, through the overlap.
    verify(r as Received, [rotated, secret], secret);
    secret = rotated;
  });
});

describe('failures: retried with backoff, Retry-After honoured, 410 disables, dead letters', { timeout: streamTestTimeout }, () => {
  it('retries a receiver answering 500 until it answers 200, with the same webhook-id; later ones wait behind it', async () => {
    demo.answer = (_r, res) => res.writeHead(500).end('down');
    const first = await writeNotification('demo');
    await feeder.drain();
    expect(demo.received).toHaveLength(1);
    const second = await writeNotification('demo');
    await feeder.drain();
    // Queued behind the failing one, untried.
    expect(demo.received).toHaveLength(1);
    expect((await call('GET', '/v2/customers/demo/webhook')).body.lastFailure).toBe('HTTP 500');

    demo.answer = (_r, res) => res.writeHead(200).end('ok');
    // Due after the first backoff step (5 s, spread by up to 20 %), counted from the attempt.
    const lane = (await queryPartition(keys.webhook('demo').pk)).filter((item) => item.entity === 'webhookDelivery');
    const failedAt = Math.floor((demo.received[0]?.at ?? 0) / 1000) * 1000;
    const due = Date.parse(String(lane.find((item) => item.notificationId === first.id)?.dueDate));
    expect(due - failedAt).toBeGreaterThanOrEqual(3_000);
    expect(due - failedAt).toBeLessThanOrEqual(7_000);
    const summary = await retryAt(plus(new Date(), 60));
    expect(summary).toMatchObject({ due: 2, delivered: 2 });
    const ids = demo.received.map((r) => r.headers['webhook-id']);
    expect(ids).toEqual([`msg_${first.id}`, `msg_${first.id}`, `msg_${second.id}`]);
    for (const r of demo.received) verify(r, [secret]);
    expect((await getNotification('demo', second.id))?.deliveryDate).toEqual(expect.any(String));
  });

  it('waits at least what Retry-After asks', async () => {
    demo.answer = (_r, res) => res.writeHead(503, { 'Retry-After': '7200' }).end();
    const n = await writeNotification('demo');
    await feeder.drain();
    expect((await retryAt(plus(new Date(), 3600))).due).toBe(0);
    demo.answer = (_r, res) => res.writeHead(204).end();
    expect(await retryAt(plus(new Date(), 7300))).toMatchObject({ due: 1, delivered: 1 });
    expect((await getNotification('demo', n.id))?.deliveryDate).toEqual(expect.any(String));
  });

  it('makes a dead letter after the last of 10 attempts', async () => {
    demo.answer = (_r, res) => res.writeHead(500).end();
    const n = await writeNotification('demo');
    await feeder.drain();
    let at = new Date();
    for (let attempt = 2; attempt <= 10; attempt++) {
      at = plus(at, 2 * 86_400);
      await retryAt(at);
    }
    expect(demo.received).toHaveLength(10);
    expect((await listDeadLetters('demo', 100)).map((d) => [d.notificationId, d.attempts, d.lastFailure])).toContainEqual([
      n.id,
      10,
      'HTTP 500',
    ]);
  });

  it('disables the endpoint on a 410 and dead-letters what follows; the customer lists its dead letters and has one redelivered', async () => {
    demo.answer = (_r, res) => res.writeHead(410).end();
    const gone = await writeNotification('demo');
    await feeder.drain();
    const hook = (await call('GET', '/v2/customers/demo/webhook')).body;
    expect(hook).toMatchObject({ status: 'DISABLED', disabledReason: 'HTTP 410 Gone' });
    expect((await listDeadLetters('demo', 100)).map((d) => d.notificationId)).toContain(gone.id);
    demo.received.length = 0;
    await writeNotification('demo');
    await feeder.drain();
    expect(demo.received).toHaveLength(0);
    // A PUT enables it again; the customer lists its dead letters and has one redelivered.
    expect((await call('PUT', '/v2/customers/demo/webhook', { body: { url: demo.url } })).body.status).toBe('ENABLED');
    const letters = await call('GET', '/v2/customers/demo/webhook/dead-letters');
    expect(letters.status).toBe(200);
    expect(letters.body.entities).toContainEqual({
      notificationId: gone.id,
      attempts: 1,
      deadDate: expect.any(String),
      lastFailure: 'HTTP 410 Gone',
    });
    expect((await call('GET', '/v2/customers/demo/webhook/dead-letters', { key: otherKey })).status).toBe(403);
    demo.answer = (_r, res) => res.writeHead(204).end();
    demo.received.length = 0;
    expect((await call('POST', `/v2/customers/demo/webhook/dead-letters/${gone.id}/redeliver`)).status).toBe(202);
    expect((await call('POST', `/v2/customers/demo/webhook/dead-letters/${gone.id}/redeliver`)).status).toBe(404);
    await retryAt(plus(new Date(), 1));
    expect(demo.received.map((r) => r.headers['webhook-id'])).toContain(`msg_${gone.id}`);
    expect(
      (await call('GET', '/v2/customers/demo/webhook/dead-letters')).body.entities.map((d: { notificationId: number }) => d.notificationId),
    ).not.toContain(gone.id);
  });

  it('delivers again, with the same webhook-id, what failed to be recorded after the POST (a crash mid-delivery); nothing is lost', async () => {
    const restore = beforeFirstCall(
      (command, partitions) => command === 'UpdateItemCommand' && partitions.some((p) => p.startsWith('NOTIFICATIONS#demo')),
      async () => {
        throw Object.assign(new Error('injected'), { name: 'InternalServerError', $fault: 'server' });
      },
    );
    const n = await writeNotification('demo');
    try {
      await feeder.drain();
    } finally {
      restore();
    }
    await feeder.drain();
    const ids = demo.received.map((r) => r.headers['webhook-id']);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids)).toEqual(new Set([`msg_${n.id}`]));
    expect((await getNotification('demo', n.id))?.deliveryDate).toEqual(expect.any(String));
  });
});

describe('the delivery queue: one message group per customer, partial batch failures, a dead-letter queue', {
  timeout: streamTestTimeout,
}, () => {
  beforeAll(async () => {
    expect((await call('PUT', '/v2/customers/other/webhook', { body: { url: other.url }, key: otherKey })).status).toBe(201);
  });
  afterAll(async () => {
    await call('DELETE', '/v2/customers/other/webhook', { key: otherKey });
  });

  it("receives again only the failing customer's messages, in order; another customer's in the same batch are delivered once", async () => {
    // Demo's delivery cannot be recorded twice (after its POST): its message fails, other's does not.
    const restore = failCalls((command, pks) => command === 'UpdateItemCommand' && pks.some((p) => p.startsWith('NOTIFICATIONS#demo')), 2);
    const at = toWireTime(new Date());
    const base = 910_000_000 + process.pid * 10 + ++serial * 1000;
    const notification = (id: number, customer: string): NotificationRecord => ({
      id,
      customer,
      fireDate: at,
      message: 'queued',
      eventType: 'TransferDomainEvent',
      notificationType: 'TransferDomainNotification',
      isAsync: true,
    });
    const [first, mine, second] = [notification(base + 1, 'demo'), notification(base + 2, 'other'), notification(base + 3, 'demo')];
    try {
      await transact(notificationWrites(first, mine, second));
      await feeder.drain();
    } finally {
      restore();
    }
    expect(other.received.map((r) => r.headers['webhook-id'])).toEqual([`msg_${mine.id}`]);
    const ids = demo.received.map((r) => r.headers['webhook-id']);
    // The first is sent until its delivery is recorded (same webhook-id each time); the second only after it.
    expect(ids).toEqual([`msg_${first.id}`, `msg_${first.id}`, `msg_${first.id}`, `msg_${second.id}`]);
    for (const r of [...demo.received]) verify(r, [secret]);
    expect((await getNotification('demo', first.id))?.deliveryDate).toEqual(expect.any(String));
    expect((await getNotification('demo', second.id))?.deliveryDate).toEqual(expect.any(String));
    expect(feeder.failures).toEqual([]);
  });

  it("moves a message that keeps failing to the dead-letter queue, while the other customers' go on", async () => {
    // Demo's endpoint cannot be read at all: its message fails at every receive.
    const restore = failCalls((command, pks) => command === 'GetItemCommand' && pks.includes(keys.webhook('demo').pk), 1_000);
    try {
      const stuck = await writeNotification('demo');
      const mine = await writeNotification('other');
      await feeder.drain();
      expect(other.received.map((r) => r.headers['webhook-id'])).toEqual([`msg_${mine.id}`]);
      expect(demo.received).toHaveLength(0);
      expect(feeder.failures).toEqual([
        expect.objectContaining({
          consumer: 'webhook-deliver',
          records: 1,
          reason: `received ${consumer?.queue?.maxReceiveCount} times without success`,
        }),
      ]);
      // Dead-lettered by the queue, still waiting in the customer's poll queue.
      expect((await getNotification('demo', stuck.id))?.acknowledgeDate).toBeUndefined();
    } finally {
      restore();
    }
  });
});

describe('isolation: one customer', { timeout: streamTestTimeout }, () => {
  it("whose receiver hangs delays neither another customer's deliveries nor its own poll queue (measured)", async () => {
    const rounds = 5;
    /** Demo's delivery latency, ms, for a notification written right after one of other's. */
    const measure = async (): Promise<number> => {
      const before = demo.received.length;
      await writeNotification('other');
      const written = Date.now();
      const mine = await writeNotification('demo');
      while (demo.received.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(demo.received.at(-1)?.headers['webhook-id']).toBe(`msg_${mine.id}`);
      return (demo.received.at(-1)?.at ?? 0) - written;
    };
    // The baseline: other has no webhook.
    const baseline: number[] = [];
    for (let i = 0; i < rounds; i++) baseline.push(await measure());
    other.hold();
    expect((await call('PUT', '/v2/customers/other/webhook', { body: { url: other.url }, key: otherKey })).status).toBe(201);
    const latencies: number[] = [];
    for (let i = 0; i < rounds; i++) latencies.push(await measure());
    // Every one of demo's arrived while other's receiver still held its first request; other's
    // later notifications were queued behind it, not tried on the shared path.
    expect(other.received).toHaveLength(1);
    const queue = await call('GET', '/v2/customers/other/notifications/poll', { key: otherKey });
    expect(queue.body.count).toBeGreaterThanOrEqual(rounds);
    // Its group's messages come one at a time, each sent to the lane behind the first (a short attempt at most).
    const inLane = async () => (await queryPartition(keys.webhook('other').pk)).filter((item) => item.entity === 'webhookDelivery');
    for (let i = 0; i < 100 && (await inLane()).length < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await inLane()).toHaveLength(rounds);
    console.log(
      `webhook isolation: demo's delivery latency, ms: ${baseline.join(', ')} with other quiet; ${latencies.join(', ')} while other's receiver hangs (first attempt budget ${process.env.WEBHOOK_FIRST_ATTEMPT_MS} ms)`,
    );
    other.release();
    await call('DELETE', '/v2/customers/other/webhook', { key: otherKey });
  });
});

describe('SSRF', () => {
  it('refuses loopback without WEBHOOKS_ALLOW_LOOPBACK, private and link-local addresses, and never follows a redirect', async () => {
    delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
    try {
      for (const url of [demo.url, 'https://10.0.0.1/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://[fd00::1]/x']) {
        const outcome = await postSigned(url, '{}', {});
        expect(outcome.kind, url).toBe('failed');
      }
      expect(demo.received).toHaveLength(0);
    } finally {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
    }
    demo.answer = (_r, res) => res.writeHead(302, { Location: other.url }).end();
    expect(await postSigned(demo.url, '{}', {})).toEqual({ kind: 'failed', failure: 'HTTP 302 (redirects are not followed)' });
    expect(other.received).toHaveLength(0);
  });

  it('gives up on a receiver that never answers at the deadline, and reads no more than a small cap of a huge answer', async () => {
    other.hold();
    const started = Date.now();
    expect(await postSigned(other.url, '{}', {}, 300)).toEqual({ kind: 'failed', failure: 'no answer within 0.3 s' });
    expect(Date.now() - started).toBeLessThan(5000);
    other.release();
    demo.answer = (_r, res) => {
      res.writeHead(200);
      res.end('x'.repeat(5_000_000));
    };
    expect(await postSigned(demo.url, '{}', {})).toEqual({ kind: 'delivered', status: 200 });
  });
});

describe('a retry finishes inside its function (issue 32 item 3)', { timeout: 120_000 }, () => {
  afterEach(async () => {
    // Nothing of these tests waits in demo's retry lane for the next test.
    for (let waiting = await firstWaitingDelivery('demo'); waiting; waiting = await firstWaitingDelivery('demo')) {
      await removeDelivery('demo', waiting.notificationId);
    }
  });

  it('a receiver that never answers: each run of the job, within the deployed timeout, records its failure, backs off, and the last makes a dead letter', async () => {
    demo.answer = () => {};
    const n = await writeNotification('demo');
    await feeder.drain();
    expect(await firstWaitingDelivery('demo')).toMatchObject({ notificationId: n.id, attempts: 1 });

    // One run as Lambda gives it: the deployed timeout, enforced by the local job runner.
    let at = plus(new Date(), 2 * 86_400);
    const started = Date.now();
    const deployed = await runJob('webhook-retry', { time: at, timeoutMs: functionTimeoutSeconds * 1000 });
    expect(deployed).toEqual({ result: expect.objectContaining({ deferred: 0 }) });
    expect(Date.now() - started).toBeLessThan(functionTimeoutSeconds * 1000);
    const second = await firstWaitingDelivery('demo');
    expect(second).toMatchObject({ notificationId: n.id, attempts: 2, lastFailure: expect.stringMatching(/^no answer within [\d.]+ s$/) });
    // Backed off: due the documented delay after the attempt (300 s, with jitter), not at its lease's end.
    expect(Date.parse(second?.dueDate ?? '')).toBeGreaterThan(started + 200_000);

    // The rest of the schedule under a shorter timeout (the budget scales with it), to the dead-letter list.
    for (let attempt = 3; attempt <= 10; attempt++) {
      at = plus(at, 2 * 86_400);
      const run = await runJob('webhook-retry', { time: at, timeoutMs: 4000 });
      expect(run, `attempt ${attempt}`).toEqual({ result: expect.objectContaining({ deferred: 0 }) });
      if (attempt < 10) {
        expect(await firstWaitingDelivery('demo'), `attempt ${attempt}`).toMatchObject({ notificationId: n.id, attempts: attempt });
      }
    }
    expect((await listDeadLetters('demo', 100)).find((d) => d.notificationId === n.id)).toMatchObject({
      attempts: 10,
      lastFailure: expect.stringMatching(/^no answer within/),
    });
    expect((await firstWaitingDelivery('demo'))?.notificationId).not.toBe(n.id);
  });

  it('a run whose budget is spent leaves the rest for the next run, unclaimed', async () => {
    demo.answer = () => {};
    await writeNotification('demo');
    await feeder.drain();
    const run = await runJob('webhook-retry', { time: plus(new Date(), 2 * 86_400), timeoutMs: 2000 });
    expect(run).toEqual({ result: expect.objectContaining({ deferred: expect.any(Number) }) });
    expect((run as { result: { deferred: number } }).result.deferred).toBeGreaterThanOrEqual(1);
    expect(await firstWaitingDelivery('demo')).toMatchObject({ attempts: 1 });
  });
});

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { clientConfig } from '../shared/db/client.ts';
import { notificationWrites } from '../shared/db/repositories/notifications.ts';
import { defaultLocalTableName } from '../shared/db/table.ts';
import type { NotificationRecord } from '../shared/model/notification.ts';
import { toWireTime } from '../shared/time.ts';
import { exited, groupGoneWithin, type Launcher, launch } from './support/sandbox.ts';

/**
 * `npm start` killed with SIGKILL in the middle of a delivery (the whole process group, DynamoDB
 * Local included, as a crash of the machine would) and started again on the same data dir: every
 * notification written arrives at the receiver at least once, and a notification delivered twice
 * carries the same `webhook-id` (and the same signed body) both times.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

const started: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'webhook-restart-'));
let server: Server | undefined;

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  }
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

const total = 60;
/** The request the receiver holds unanswered: the sandbox is killed while it waits. */
const heldAt = 20;

describe('npm start killed mid-delivery and restarted', { timeout: 240_000 }, () => {
  it('loses no notification; a duplicate carries the same webhook-id', async () => {
    const received: Received[] = [];
    let onHeld: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      onHeld = resolve;
    });
    const holding: ServerResponse[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        if (received.length === heldAt) {
          holding.push(res);
          onHeld();
          return;
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const env = { WEBHOOKS_ALLOW_LOOPBACK: 'true' };

    const first = await launch(['--data-dir', dataDir], env, { detached: true, started, readyWithinMs: 120_000 });
    const registered = await api(first, 'PUT', '/v2/customers/demo/webhook', { url });
    expect(registered.status).toBe(201);
    const secret = ((await registered.json()) as { secret: string }).secret;

    // The notifications, written as state changes write them (the outbox's items), in transactions of ten.
    const base = 700_000_000 + (Date.now() % 100_000) * 1000;
    const written: NotificationRecord[] = Array.from({ length: total }, (_, i) => ({
      id: base + i,
      customer: 'demo',
      fireDate: toWireTime(new Date()),
      message: `restart ${i}`,
      eventType: 'TransferDomainEvent',
      notificationType: 'TransferDomainNotification',
      isAsync: true,
    }));
    const table = sandboxTable(first);
    for (let i = 0; i < total; i += 10) {
      // The notifications' Puts and their counts' Updates, into the sandbox's table.
      const items = notificationWrites(...written.slice(i, i + 10)).map((item) =>
        Object.fromEntries(Object.entries(item).map(([kind, write]) => [kind, { ...write, TableName: defaultLocalTableName }])),
      );
      await table.send(new TransactWriteCommand({ TransactItems: items as never }));
    }
    table.destroy();

    // Killed while the receiver holds a delivery: it was POSTed, never recorded.
    await held;
    process.kill(-(first.child.pid as number), 'SIGKILL');
    await exited(first.child);
    expect(await groupGoneWithin(first.child.pid as number, 10_000)).toBe(true);
    const beforeRestart = received.length;
    expect(beforeRestart).toBe(heldAt);
    for (const res of holding.splice(0)) res.destroy();

    const second = await launch(['--data-dir', dataDir], env, { detached: true, started, readyWithinMs: 120_000 });
    const expected = new Set(written.map((n) => `msg_${n.id}`));
    const deadline = Date.now() + 120_000;
    while ([...expected].some((id) => !received.some((r) => r.headers['webhook-id'] === id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Every notification arrived, each verified with the Standard Webhooks algorithm.
    const verifier = new Webhook(secret);
    const bodies = new Map<string, string[]>();
    for (const r of received) {
      const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
      const n = verifier.verify(r.body, headers) as NotificationRecord;
      const id = String(r.headers['webhook-id']);
      expect(id).toBe(`msg_${n.id}`);
      bodies.set(id, [...(bodies.get(id) ?? []), r.body]);
    }
    expect(new Set([...bodies.keys()].filter((id) => expected.has(id)))).toEqual(expected);
    // The held one was delivered again after the restart: the same webhook-id, the same body.
    const heldId = String(received[heldAt - 1]?.headers['webhook-id']);
    expect(bodies.get(heldId)?.length).toBeGreaterThanOrEqual(2);
    for (const [, sent] of bodies) expect(new Set(sent).size).toBe(1);
    const duplicates = [...bodies.values()].filter((sent) => sent.length > 1).length;
    console.log(
      `restart: ${received.length} requests for ${total} notifications (${beforeRestart} before the kill); ${duplicates} delivered more than once, each with one webhook-id`,
    );

    // Each is recorded delivered in the end (the record follows the receiver's answer by a moment).
    const undelivered = async () => {
      const listed = await api(second, 'GET', '/v2/customers/demo/notifications?limit=100&q=restart&fields=id,deliveryDate');
      const { entities } = (await listed.json()) as { entities: { id: number; deliveryDate?: string }[] };
      expect(entities.filter((n) => written.some((w) => w.id === n.id))).toHaveLength(total);
      return entities.filter((n) => n.deliveryDate === undefined).length;
    };
    const recordedBy = Date.now() + 15_000;
    while ((await undelivered()) > 0 && Date.now() < recordedBy) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await undelivered()).toBe(0);
    process.kill(-(second.child.pid as number), 'SIGTERM');
    await exited(second.child);
  });
});

function api(sandbox: Launcher, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${sandbox.url}${path}`, {
    method,
    headers: { Authorization: 'ApiKey demo-key', ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/** A client of the sandbox's own DynamoDB Local. */
function sandboxTable(sandbox: Launcher): DynamoDBDocumentClient {
  const endpoint = sandbox.dynamoEndpoint as string;
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ ...clientConfig(), endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

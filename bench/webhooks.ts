/**
 * `npm run bench:webhooks`: webhook delivery, end to end, in one run: notifications are written as
 * a state change writes them (the outbox's transaction), the stream consumer is fed from DynamoDB
 * Local's stream as Lambda feeds it (infra/local/streams.ts), and local receivers take the POSTs.
 *   1. latency: from the transaction to the webhook's arrival, p50 and p99, one customer;
 *   2. throughput: deliveries per second to healthy customers, alone and with one customer's
 *      receiver failing (answering 500) beside them, as a ratio.
 * It starts its own DynamoDB Local, unless `DYNAMODB_ENDPOINT` names one. `BENCH_LATENCY_SAMPLES`
 * (default 60) and `BENCH_BURST` (notifications per customer per burst, default 25) size it.
 * Figures only: nothing is asserted (docs/notifications.md).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-webhooks-${randomUUID()}`;
process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';

const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { ensureTable } = await import('../infra/local/ensure-table.ts');
const { startStreamFeeder } = await import('../infra/local/streams.ts');
const { notificationWrites } = await import('../shared/db/repositories/notifications.ts');
const { putWebhook } = await import('../shared/db/repositories/webhooks.ts');
const { transact } = await import('../shared/db/transactions.ts');
const { tableName } = await import('../shared/db/table.ts');
const { streamConsumers } = await import('../shared/routes.ts');
const { toWireTime } = await import('../shared/time.ts');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** A receiver answering `status`; `arrived` is called with each delivery's notification id. */
async function receiver(status: number, arrived: (id: number) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      res.writeHead(status).end();
      if (status < 300) arrived((JSON.parse(body) as { id: number }).id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

let nextId = 1;
async function notify(customer: string): Promise<number> {
  const id = nextId++ * 1000;
  await transact(
    notificationWrites({
      id,
      customer,
      fireDate: toWireTime(new Date()),
      message: 'bench',
      eventType: 'TransferDomainEvent',
      notificationType: 'TransferDomainNotification',
      isAsync: true,
    }),
  );
  return id;
}

const own = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
if (own) process.env.DYNAMODB_ENDPOINT = own.endpoint;
const servers: Server[] = [];
const consumer = streamConsumers.find((c) => c.id === 'webhook-deliver');
if (!consumer) throw new Error('no webhook-deliver stream consumer');
try {
  await ensureTable(tableName());
  const feeder = await startStreamFeeder({ tableName: tableName(), consumers: [consumer], pollIntervalMs: 25, log: () => {} });
  const arrivals = new Map<number, number>();
  const healthy = ['bench-a', 'bench-b', 'bench-c', 'bench-d'];
  for (const customer of healthy) {
    const r = await receiver(204, (id) => arrivals.set(id, performance.now()));
    servers.push(r.server);
    await putWebhook(
      customer,
      r.url,
      { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, createdDate: toWireTime(new Date()) },
      toWireTime(new Date()),
    );
  }
  const waitFor = async (ids: number[]) => {
    const deadline = Date.now() + 120_000;
    while (ids.some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  // 1. Latency, one notification at a time.
  const latencies: number[] = [];
  for (let i = 0; i < Number(process.env.BENCH_LATENCY_SAMPLES ?? 60); i++) {
    const started = performance.now();
    const id = await notify('bench-a');
    await waitFor([id]);
    latencies.push((arrivals.get(id) ?? Number.NaN) - started);
  }
  latencies.sort((a, b) => a - b);

  // 2. Throughput: a burst to the healthy customers, then the same with a failing one beside them.
  const burst = async (extra: string | undefined): Promise<number> => {
    const started = performance.now();
    const ids: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_BURST ?? 25); i++) {
      for (const customer of healthy) ids.push(await notify(customer));
      if (extra) await notify(extra);
    }
    await waitFor(ids);
    return ids.length / ((performance.now() - started) / 1000);
  };
  const alone = await burst(undefined);
  const failing = await receiver(500, () => {});
  servers.push(failing.server);
  await putWebhook(
    'bench-failing',
    failing.url,
    { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`, createdDate: toWireTime(new Date()) },
    toWireTime(new Date()),
  );
  const beside = await burst('bench-failing');
  await feeder.stop();

  console.log('\n### Webhook delivery (local stream feeder, DynamoDB Local)\n');
  console.log('| figure | value |');
  console.log('|---|---:|');
  console.log(`| state change -> webhook arrival, p50 | ${percentile(latencies, 50).toFixed(0)} ms |`);
  console.log(`| state change -> webhook arrival, p99 | ${percentile(latencies, 99).toFixed(0)} ms |`);
  console.log(`| deliveries/s to 4 healthy customers | ${alone.toFixed(1)} |`);
  console.log(`| deliveries/s to them, a 5th customer's receiver answering 500 | ${beside.toFixed(1)} |`);
  console.log(`| ratio (with failing / alone) | ${(beside / alone).toFixed(2)} |`);
} finally {
  for (const s of servers) s.close();
  await own?.stop();
}

/**
 * `npm run bench:webhooks`: webhook delivery, end to end, in one run: notifications are written as
 * a state change writes them (the outbox's transaction), the delivering function is fed from
 * DynamoDB Local's stream through the local delivery queue as the pipe and SQS feed it deployed
 * (infra/local/streams.ts), and local receivers take the POSTs.
 *   1. latency: from the transaction to the webhook's arrival, p50 and p99, one customer;
 *   2. throughput: deliveries per second to healthy customers, alone and with one customer's
 *      receiver failing (answering 500) beside them, as a ratio.
 * It starts its own DynamoDB Local, unless `DYNAMODB_ENDPOINT` names one. `BENCH_LATENCY_SAMPLES`
 * (default 60) and `BENCH_BURST` (notifications per customer per burst, default 25) size it.
 * Figures only: nothing is asserted (docs/notifications.md). Each part is measured on its own: one
 * that fails or times out is reported as such and the others still run; the table is always printed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-webhooks-${randomUUID()}`;
process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
process.env.WEBHOOK_SECRETS_LOCAL_KEY ??= Buffer.from(randomUUID().replaceAll('-', '')).toString('base64');

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

/** The figures measured so far, printed whatever happens. */
const rows: [string, string][] = [];
/** Runs one part of the bench; a failure is a row saying so, never the end of the run. */
async function part(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    rows.push([`${name}: not measured`, (error as Error).message.replaceAll('|', '/')]);
  }
}

const own = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
if (own) process.env.DYNAMODB_ENDPOINT = own.endpoint;
const servers: Server[] = [];
const consumer = streamConsumers.find((c) => c.id === 'webhook-deliver');
let feeder: Awaited<ReturnType<typeof startStreamFeeder>> | undefined;
try {
  if (!consumer) throw new Error('no webhook-deliver stream consumer');
  await ensureTable(tableName());
  feeder = await startStreamFeeder({ tableName: tableName(), consumers: [consumer], pollIntervalMs: 25, log: () => {} });
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
  /** Waits until every id has arrived, at most `ms`; answers how many did not. */
  const waitFor = async (ids: number[], ms = 60_000): Promise<number> => {
    const deadline = Date.now() + ms;
    while (ids.some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    return ids.filter((id) => !arrivals.has(id)).length;
  };

  // 1. Latency, one notification at a time: from its transaction to the receiver's answer.
  await part('latency', async () => {
    const latencies: number[] = [];
    let lost = 0;
    const samples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 60);
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      const id = await notify('bench-a');
      if ((await waitFor([id], 10_000)) > 0) lost++;
      else latencies.push((arrivals.get(id) as number) - started);
    }
    latencies.sort((a, b) => a - b);
    if (latencies.length === 0) throw new Error(`none of ${samples} arrived within 10 s`);
    rows.push([`state change -> webhook arrival, p50 (${latencies.length} samples)`, `${percentile(latencies, 50).toFixed(0)} ms`]);
    rows.push(['state change -> webhook arrival, p99', `${percentile(latencies, 99).toFixed(0)} ms`]);
    if (lost > 0) rows.push(['not arrived within 10 s', String(lost)]);
  });

  // 2. Throughput: a burst to the healthy customers (written side by side, as their own state
  // changes would be), then the same with a customer whose receiver answers 500 beside them.
  const burst = async (extra: string | undefined): Promise<{ perSecond: number; missing: number }> => {
    const started = performance.now();
    const ids: number[] = [];
    for (let i = 0; i < Number(process.env.BENCH_BURST ?? 50); i++) {
      const written = await Promise.all([...healthy, ...(extra ? [extra] : [])].map((customer) => notify(customer)));
      ids.push(...written.slice(0, healthy.length));
    }
    const missing = await waitFor(ids);
    return { perSecond: (ids.length - missing) / ((performance.now() - started) / 1000), missing };
  };
  let alone: number | undefined;
  await part('throughput alone', async () => {
    const { perSecond, missing } = await burst(undefined);
    alone = perSecond;
    rows.push([`deliveries/s to ${healthy.length} healthy customers`, perSecond.toFixed(1)]);
    if (missing > 0) rows.push(['  not arrived within 60 s', String(missing)]);
  });
  await part('throughput beside a failing customer', async () => {
    let failures = 0;
    const failing = await receiver(500, () => {});
    failing.server.on('request', () => failures++);
    servers.push(failing.server);
    await putWebhook(
      'bench-failing',
      failing.url,
      { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`, createdDate: toWireTime(new Date()) },
      toWireTime(new Date()),
    );
    const { perSecond, missing } = await burst('bench-failing');
    rows.push([`deliveries/s to them, a ${healthy.length + 1}th customer's receiver answering 500`, perSecond.toFixed(1)]);
    if (missing > 0) rows.push(['  not arrived within 60 s', String(missing)]);
    if (alone) rows.push(['ratio (with failing / alone)', (perSecond / alone).toFixed(2)]);
    rows.push(['requests to the failing receiver on the shared path (the rest wait in its retry lane)', String(failures)]);
  });
} catch (error) {
  rows.push(['setup failed', (error as Error).message.replaceAll('|', '/')]);
} finally {
  await feeder?.stop().catch(() => {});
  for (const s of servers) s.close();
  await own?.stop().catch(() => {});
  console.log('\n### Webhook delivery (local stream feeder and delivery queue, DynamoDB Local)\n');
  console.log('| figure | value |');
  console.log('|---|---:|');
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
}

/**
 * The expiry job at scale (docs/domains.md, "Life cycle"): 10,000 auto-renewing domains of one
 * customer expiring on one day, and the job run as Lambda runs it (infra/local/jobs.ts: the
 * deployed 10 s timeout) at the end of that day, again and again until nothing is due. It prints
 * each run (renewed, how long), the total, and checks that every domain was renewed exactly once:
 * one renewal process with one RENEW charge per domain, its expiry a year on, at the sandbox
 * registry too. `npx tsx bench/expiry.ts [count]` (10,000 without one). It starts its own DynamoDB
 * Local, or with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a table of its
 * own).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { arch } from 'node:process';

process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-${randomUUID()}`;
const { localSandboxEnvironment } = await import('../infra/stages.ts');
Object.assign(process.env, localSandboxEnvironment, { ONE_TIME_LINK_SECRET: randomUUID() + randomUUID() });

const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { ensureTable } = await import('../infra/local/ensure-table.ts');
const { loadDataset, parseDataset } = await import('../infra/dataset.ts');
const { runJob } = await import('../infra/local/jobs.ts');
const { batchWriteAll, queryAll } = await import('../shared/db/items.ts');
const { keys } = await import('../shared/db/keys.ts');
const { domainItem, statusItems } = await import('../shared/db/repositories/domains.ts');
const { batchGetAll } = await import('../shared/db/items.ts');
const { table } = await import('./report.ts');
const { db } = await import('../shared/db/client.ts');

/**
 * Every DynamoDB call the job makes, by command, with the time each took to answer: counted at the
 * SDK boundary (a middleware on the shared client), so the figures say how many table calls a
 * renewal costs and how long DynamoDB Local took for each, from which the deployed run is estimated.
 */
const calls = new Map<string, { count: number; ms: number }>();
let counting = false;
/** Called once the endpoint is set (db() makes the client on its first call). */
const countCalls = () =>
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (!counting) return next(args);
      const t = performance.now();
      try {
        return await next(args);
      } finally {
        const entry = calls.get(String(context.commandName)) ?? { count: 0, ms: 0 };
        entry.count += 1;
        entry.ms += performance.now() - t;
        calls.set(String(context.commandName), entry);
      }
    },
    { step: 'initialize', name: 'bench-count-calls' },
  );

const count = Number(process.argv[2]) || 10_000;
const customer = 'demo';
/** The day they all expire on: yesterday, spread over its hours. */
const day = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 86_400_000;
const wire = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const expiryOf = (i: number) => wire(day + Math.floor((i * 86_400_000) / count));
const nameOf = (i: number) => `x${String(i).padStart(6, '0')}.com`;

async function load(): Promise<void> {
  const chunk = 2_000;
  for (let from = 0; from < count; from += chunk) {
    const writes = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const d = {
        domainName: nameOf(i),
        customer,
        registry: 'verisign',
        registrant: 'demo-registrant',
        contacts: [],
        ns: ['ns1.bench.example', 'ns2.bench.example'],
        keyData: [],
        privacyProtect: false,
        autoRenew: true,
        autoRenewPeriod: 12,
        premium: false,
        status: ['OK'],
        createdDate: '2024-01-01T00:00:00Z',
        updatedDate: '2024-01-01T00:00:00Z',
        expiryDate: expiryOf(i),
      };
      writes.push(
        { put: domainItem(d) },
        ...statusItems(d).flatMap((t) => (t.Put ? [{ put: t.Put.Item as Record<string, unknown> }] : [])),
      );
    }
    await batchWriteAll(writes);
  }
  await batchWriteAll([{ put: { ...keys.domainCounts(customer), entity: 'domainCounts', all: count, status_OK: count } }]);
}

const running = process.env.BENCH_DYNAMODB_ENDPOINT;
const dynamo = running ? undefined : await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = running ?? dynamo?.endpoint;
try {
  countCalls();
  await ensureTable(process.env.TABLE_NAME as string, { stream: false });
  await loadDataset(parseDataset(JSON.parse(readFileSync(new URL('../infra/demo-data.json', import.meta.url), 'utf8'))));
  console.log(`# the expiry job at scale: ${new Date().toISOString().slice(0, 19)}Z`);
  console.log(`machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}`);
  const t0 = performance.now();
  await load();
  const loadSeconds = (performance.now() - t0) / 1000;
  const at = new Date(day + 86_400_000);
  const rows: (string | number)[][] = [];
  let renewed = 0;
  let runs = 0;
  let busySeconds = 0;
  counting = true;
  const started = performance.now();
  for (;;) {
    const t = performance.now();
    const outcome = await runJob('domain-expiry', { time: at });
    runs += 1;
    const seconds = ((performance.now() - t) / 1000).toFixed(1);
    if (!('result' in outcome)) {
      rows.push([runs, 'timed out', '', seconds, '']);
      continue;
    }
    const run = outcome.result as { renewed: number; read: number; failed: number; more: boolean };
    renewed += run.renewed;
    if (run.renewed > 0) busySeconds += Number(seconds);
    rows.push([runs, run.renewed, run.failed, seconds, run.renewed > 0 ? (run.renewed / Number(seconds)).toFixed(1) : '']);
    if (!run.more && run.read === 0) break;
    if (runs > 200) throw new Error('the job did not finish within 200 runs');
  }
  const total = (performance.now() - started) / 1000;
  counting = false;
  table(
    `${count.toLocaleString('en')} domains expiring on one day, the job run at 10 s (its deployed timeout) until none is due (loaded in ${loadSeconds.toFixed(0)} s)`,
    ['run', 'renewed', 'failed', 'seconds', 'renewed per second'],
    rows,
  );
  // The table calls of the whole job (the runs cut off included), per domain renewed, and what each took here.
  const allCalls = [...calls.values()].reduce((sum, c) => sum + c.count, 0);
  const allMs = [...calls.values()].reduce((sum, c) => sum + c.ms, 0);
  table(
    'Table calls of the job, per domain renewed',
    ['command', 'calls', 'per domain', 'mean ms here'],
    [
      ...[...calls]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([command, c]) => [command, c.count, (c.count / count).toFixed(2), (c.ms / c.count).toFixed(1)]),
      ['all', allCalls, (allCalls / count).toFixed(2), (allMs / allCalls).toFixed(1)],
    ],
  );
  // Deployed estimate: a renewal's calls run one after another in one of the job's 16 workers; the run's
  // budget is the 10 s timeout less a margin (about 9 s). DynamoDB answers a call in single-digit ms
  // inside the region; 10 ms a call, Lambda's overhead included, is taken as a cautious figure.
  const perDomain = allCalls / count;
  const deployedPerSecond = 16 / ((perDomain * 10) / 1000);
  // Through an upstream account (REGISTRY_GATEWAY=rtr) the sandbox registry's two table calls (its
  // domain read and written) become three HTTP calls upstream (the domain, the renewal's quote, the
  // renewal; the price list is cached), taken at 150 ms each.
  const upstreamPerSecond = 16 / (((perDomain - 2) * 10 + 3 * 150) / 1000);
  table(
    'Throughput: measured here, and estimated deployed (16 workers, 10 ms a table call, 150 ms an upstream call, 9 s of a 10 s run)',
    ['', 'renewed per second', 'renewed per run', 'runs for all'],
    [
      [
        'here (runs that renewed)',
        (renewed / busySeconds).toFixed(1),
        (renewed / Math.max(1, rows.filter((r) => Number(r[1]) > 0).length)).toFixed(0),
        runs,
      ],
      // The model checked against this machine: the same formula with the latency measured here.
      ['here, from its calls and their latency', (16 / ((perDomain * allMs) / allCalls / 1000)).toFixed(1), '', ''],
      ['deployed (estimate)', deployedPerSecond.toFixed(0), (deployedPerSecond * 9).toFixed(0), Math.ceil(count / (deployedPerSecond * 9))],
      [
        'deployed through an upstream account (estimate)',
        upstreamPerSecond.toFixed(0),
        (upstreamPerSecond * 9).toFixed(0),
        Math.ceil(count / (upstreamPerSecond * 9)),
      ],
    ],
  );

  // Exactly once: one renewal process per domain, one RENEW line each, the expiry a year on here and at the registry.
  const processes = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.processesOfCustomer(customer).gsi1pk },
  });
  const renewals = new Map<string, number>();
  for (const p of processes) {
    if (p.action !== 'renew' || !String(p.identifier).startsWith('x')) continue;
    const lines = (p.billables as { action: string }[]).filter((b) => b.action === 'RENEW').length;
    renewals.set(String(p.identifier), (renewals.get(String(p.identifier)) ?? 0) + lines);
  }
  const names = Array.from({ length: count }, (_, i) => nameOf(i));
  const domains = await batchGetAll(names.map((n) => keys.domainByName(n)));
  const registry = await batchGetAll(names.map((n) => keys.registryDomain(n)));
  const yearOn = (i: number) => {
    const d = new Date(expiryOf(i));
    d.setUTCFullYear(d.getUTCFullYear() + 1);
    return wire(d.getTime());
  };
  const expected = new Map(names.map((n, i) => [n, yearOn(i)]));
  const ours = domains.filter((d) => d.expiryDate === expected.get(String(d.domainName))).length;
  const theirs = registry.filter((d) => d.expiryDate === expected.get(String(d.domainName))).length;
  const once = names.filter((n) => renewals.get(n) === 1).length;
  table(
    'Charged once',
    [
      'domains',
      'runs',
      'seconds in all',
      'renewed per second',
      'renewed by the job',
      'charged exactly once',
      'expiry a year on',
      'at the registry',
    ],
    [[count, runs, total.toFixed(1), (renewed / total).toFixed(0), renewed, once, ours, theirs]],
  );
  // (A run cut off by its timeout renewed some whose count it never answered: the table, not `renewed`, is the truth.)
  if (once !== count || ours !== count || theirs !== count) {
    process.exitCode = 1;
    console.log('FAILED: not every domain was renewed and charged exactly once');
  }
} finally {
  if (dynamo) await dynamo.stop();
}

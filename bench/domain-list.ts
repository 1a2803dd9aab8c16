/**
 * The domain list at real sizes (docs/domains.md): a customer with 10,000 domains and one with
 * 100,000, the daily listing shapes through the real handler (by name, an expiryDate range, the
 * "expiring soon" list, an exact status, a deep offset, a count only): calls, index entries read,
 * whole items read, what DynamoDB returned, the median time and the answer's size.
 * `npx tsx bench/domain-list.ts [10000] [100000]` (every size without one). It starts its own
 * DynamoDB Local, or with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already running (in a
 * table of its own, deleted at the end).
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { arch } from 'node:process';

process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-${randomUUID()}`;
const { localSandboxEnvironment } = await import('../infra/stages.ts');
Object.assign(process.env, localSandboxEnvironment, { ONE_TIME_LINK_SECRET: randomUUID() + randomUUID() });

const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { ensureTable } = await import('../infra/local/ensure-table.ts');
const { batchWriteAll } = await import('../shared/db/items.ts');
const { keys } = await import('../shared/db/keys.ts');
const { domainItem, repairExpiryDayCounts, statusItems } = await import('../shared/db/repositories/domains.ts');
const { handler } = await import('../functions/domains/handler.ts');
const { lambdaContext } = await import('../infra/local/gateway.ts');
const { apiEvent } = await import('../test/support/api.ts');
const { fullItemsRead, recordTableCalls } = await import('../test/support/sdk-calls.ts');
const { kb, ms, percentile, quietly, table } = await import('./report.ts');

/** Domain `i` of a customer: expiries spread over three years, one in 20 locked, one in 50 in redemption. */
function domain(customer: string, i: number) {
  const expiry = new Date(Date.UTC(2027, 0, 1) + (i % 1095) * 86_400_000 + (i % 86_400) * 1000);
  const status = i % 50 === 0 ? ['REDEMPTION_PERIOD'] : i % 20 === 0 ? ['CLIENT_TRANSFER_PROHIBITED'] : ['OK'];
  return {
    domainName: `d${String(i).padStart(7, '0')}.com`,
    customer,
    registry: 'verisign',
    registrant: `${customer}-registrant`,
    contacts: [{ role: 'ADMIN' as const, handle: `${customer}-admin` }],
    ns: ['ns1.bench.example', 'ns2.bench.example'],
    keyData: [],
    privacyProtect: i % 3 === 0,
    autoRenew: i % 2 === 0,
    autoRenewPeriod: 12,
    premium: false,
    status,
    createdDate: '2025-01-01T00:00:00Z',
    updatedDate: '2025-01-01T00:00:00Z',
    expiryDate: `${expiry.toISOString().slice(0, 19)}Z`,
  };
}

async function load(customer: string, count: number): Promise<void> {
  const chunk = 5_000;
  for (let from = 0; from < count; from += chunk) {
    const writes = [];
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const d = domain(customer, i);
      writes.push(
        { put: domainItem(d) },
        ...statusItems(d).flatMap((t) => (t.Put ? [{ put: t.Put.Item as Record<string, unknown> }] : [])),
      );
    }
    await batchWriteAll(writes);
  }
  // The kept counts, as the writes of these domains one by one would have left them.
  const counts: Record<string, number> = { all: count };
  for (let i = 0; i < count; i++) for (const s of domain(customer, i).status) counts[`status_${s}`] = (counts[`status_${s}`] ?? 0) + 1;
  await batchWriteAll([{ put: { ...keys.domainCounts(customer), entity: 'domainCounts', ...counts } }]);
  // The per-day expiry counts, built as `npm run admin -- migrate` builds them for existing domains.
  const repairing = performance.now();
  const written = await repairExpiryDayCounts(customer);
  console.log(`${customer}: ${written} expiry day counters built from the expiry index in ${ms(performance.now() - repairing)} ms`);
}

const shapes: [string, string][] = [
  ['first page by name', 'limit=10'],
  ['expiring within 30 days', 'expiryDate:gte=2027-03-01&expiryDate:lt=2027-03-31&limit=100'],
  ['expiring in a year (wide range)', 'expiryDate:lt=2028-01-01&limit=100'],
  ['a year, partial days at both ends', 'expiryDate:gte=2027-03-01T12:00:00Z&expiryDate:lt=2028-02-28T12:00:00Z&limit=100'],
  ['a year, count only', 'expiryDate:gte=2027-01-01&expiryDate:lt=2028-01-01&limit=0'],
  ['expiry range, deep offset', 'expiryDate:lt=2028-01-01&offset=5000&limit=100&total=false'],
  ['status=CLIENT_TRANSFER_PROHIBITED', 'status=CLIENT_TRANSFER_PROHIBITED&limit=100'],
  ['status=REDEMPTION_PERIOD, offset 1000', 'status=REDEMPTION_PERIOD&offset=1000&limit=100&total=false'],
  ['count only', 'limit=0'],
  ['autoRenew=true (filter over names, no count)', 'autoRenew=true&limit=100&total=false'],
];

function listEvent(customer: string, query: string) {
  const params = new URLSearchParams(query);
  const event = apiEvent({
    method: 'GET',
    path: '/v2/domains',
    resource: '/v2/domains',
    principal: { customer, user: 'bench', permissions: [] },
  });
  const multi: Record<string, string[]> = {};
  for (const k of new Set(params.keys())) multi[k] = params.getAll(k);
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals.at(-1) as string]));
  return event;
}

const running = process.env.BENCH_DYNAMODB_ENDPOINT;
const dynamo = running ? undefined : await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = running ?? dynamo?.endpoint;
try {
  await ensureTable(process.env.TABLE_NAME as string, { stream: false });
  console.log(`# the domain list at real sizes: ${new Date().toISOString().slice(0, 19)}Z`);
  console.log(`machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}`);
  const wanted = process.argv.slice(2).map(Number);
  for (const count of [10_000, 100_000].filter((c) => wanted.length === 0 || wanted.includes(c))) {
    const customer = `bench${count}`;
    const started = performance.now();
    await load(customer, count);
    const loadSeconds = ((performance.now() - started) / 1000).toFixed(0);
    const rows: (string | number)[][] = [];
    for (const [label, query] of shapes) {
      const once = async () =>
        (await handler(listEvent(customer, query), lambdaContext('bench', randomUUID()))) as unknown as {
          statusCode: number;
          body: string;
        };
      const { result, details } = await quietly(() => recordTableCalls(once));
      const read = details.reduce((n, d) => n + d.itemsRead, 0);
      const whole = fullItemsRead(details);
      const samples: number[] = [];
      for (let i = 0; i < 8; i++) {
        const t = performance.now();
        await quietly(once);
        if (i >= 3) samples.push(performance.now() - t);
      }
      samples.sort((x, y) => x - y);
      rows.push([
        label,
        result.statusCode,
        details.length,
        read - whole,
        whole,
        kb(details.reduce((n, d) => n + d.bytesAnswered, 0)),
        ms(percentile(samples, 50)),
        kb(Buffer.byteLength(result.body)),
      ]);
    }
    table(
      `Scale: the domain list of a customer with ${count.toLocaleString('en')} domains (through the handler, 5 runs each after 3 warm-up runs; loaded in ${loadSeconds} s)`,
      ['request', 'status', 'calls', 'index entries read', 'whole items read', 'KB returned by DynamoDB', 'p50 ms', 'answer KB'],
      rows,
    );
  }
} finally {
  if (dynamo) await dynamo.stop();
}

/**
 * `npm run bench`: the performance budgets of issue 8, measured in one run against a DynamoDB
 * Local this script starts itself (docs/performance.md explains the figures):
 *   1. round trips: DynamoDB calls per request, counted at the SDK client, warm API key;
 *   2. handler overhead: p50/p99 of each GET through its real handler vs its bare DynamoDB call;
 *   3. scale: the price list with 5,000 entries through the handler vs the raw paged Query, and
 *      the process list at 10,000 and 100,000 processes (bench/process-list.ts: calls, items read, time per shape);
 *      the notification queue at 20 and 21,000 notifications (bench/notification-list.ts: list, limit=0, poll);
 *   4. real sizes: a zone of 10,000 records and a price list of 60,000 entries through their
 *      handlers, compressed, vs the raw paged Query; the bytes on the wire plain and compressed;
 *      the price list's first request apart from the later ones, gzip and br, before and after
 *      its snapshot (bench/pricelist.ts);
 *   5. cold start: bundle size and import time of every function vs the document client alone.
 *   6. another customer's object vs a missing one: the medians of each object route, side by side.
 *   7. ACME: the renew request to a downloadable certificate against Pebble (bench/acme.ts).
 *   8. DNS: from a zone write to its answer on DNS (p50, p99), and records per second pushed (bench/dns.ts).
 * Every figure is printed next to its budget; figures over budget are marked. Exit code 0 either
 * way (the round-trip budgets are enforced by the test suite, test/round-trips.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { arch } from 'node:process';
import { gunzipSync } from 'node:zlib';

// The functions' environment, before any of their modules load: logging at the deployed level
// (INFO; the lines are built as on Lambda, and swallowed below while timing).
process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-${randomUUID()}`;
// The sandbox integrations, chosen explicitly as `npm start` chooses them.
const { localSandboxEnvironment } = await import('../infra/stages.ts');
Object.assign(process.env, localSandboxEnvironment, {
  ONE_TIME_LINK_SECRET: randomUUID() + randomUUID(),
  WEBHOOK_SECRETS_LOCAL_KEY: Buffer.from(randomUUID().replaceAll('-', '')).toString('base64'),
});

const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { ensureTable } = await import('../infra/local/ensure-table.ts');
const { demoDataFile, loadDataset, readDatasetFile } = await import('../infra/dataset.ts');
const { kb, ms, percentile, quietly, table } = await import('./report.ts');

const budgets = {
  handlerRatio: 1.3,
  scaleRatio: 1.3,
  compressedSmaller: 10,
  bundleBytes: 250 * 1024,
};

const mark = (ok: boolean) => (ok ? 'ok' : 'OVER');

/**
 * Times `a` and `b` alternately, swapping which goes first every other round, so drift and the
 * engine's pauses hit both alike; sorted samples in ms.
 */
async function timePair(a: () => Promise<unknown>, b: () => Promise<unknown>, iterations: number, warmup: number) {
  const ta: number[] = [];
  const tb: number[] = [];
  const time = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  for (let i = 0; i < warmup + iterations; i++) {
    let da: number;
    let db: number;
    if (i % 2 === 0) {
      da = await time(a);
      db = await time(b);
    } else {
      db = await time(b);
      da = await time(a);
    }
    if (i >= warmup) {
      ta.push(da);
      tb.push(db);
    }
  }
  return { a: ta.sort((x, y) => x - y), b: tb.sort((x, y) => x - y) };
}

const started = new Date();
const dynamo = await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
const outDir = mkdtempSync(join(tmpdir(), 'registrar-bench-'));
try {
  await ensureTable(process.env.TABLE_NAME);
  await loadDataset(await readDatasetFile(demoDataFile));

  console.log(`# npm run bench: ${started.toISOString().slice(0, 19)}Z`);
  console.log(
    `machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}; DynamoDB Local at ${dynamo.endpoint}`,
  );

  // ---------------------------------------------------------------- 1. round trips
  await (await import('./round-trips.ts')).benchRoundTrips();

  // ---------------------------------------------------------------- 2. handler overhead
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db } = await import('../shared/db/client.ts');
  const { queryAll } = await import('../shared/db/items.ts');
  const { keys } = await import('../shared/db/keys.ts');
  const { tableName } = await import('../shared/db/table.ts');
  const { apiEvent } = await import('../test/support/api.ts');
  const { lambdaContext } = await import('../infra/local/gateway.ts');
  type Handler = (event: ReturnType<typeof apiEvent>, context: ReturnType<typeof lambdaContext>) => Promise<{ statusCode: number }>;
  const load = async (dir: string) => (await import(`../functions/${dir}/handler.ts`)).handler as Handler;

  const invoke = async (handler: Handler, parts: Parameters<typeof apiEvent>[0], status = 200) => {
    const event = apiEvent(parts);
    const result = await handler(event, lambdaContext('bench', event.requestContext.requestId));
    if (result.statusCode !== status) throw new Error(`${parts.path} answered ${result.statusCode}`);
  };
  // Only the table's own key: an item's key helper may also name its index keys, which GetItem refuses.
  const getItem =
    ({ pk, sk }: { pk: string; sk: string }) =>
    () =>
      db().send(new GetCommand({ TableName: tableName(), Key: { pk, sk } }));
  const query = (pk: string) => () => queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
  // The reads of an object a customer owns: a Query the table filters to the customer's items (shared/db/items.ts).
  const ownedQuery = (key: { pk: string; sk?: string }) => () =>
    queryAll({
      KeyConditionExpression: key.sk === undefined ? 'pk = :pk' : 'pk = :pk AND sk = :sk',
      FilterExpression: 'customer = :owner',
      ExpressionAttributeValues: { ':pk': key.pk, ':owner': 'demo', ...(key.sk === undefined ? {} : { ':sk': key.sk }) },
    });

  const gets: { name: string; bare: string; handler: Handler; event: Parameters<typeof apiEvent>[0]; call: () => Promise<unknown> }[] = [
    {
      name: 'provider info',
      bare: 'GetItem provider',
      handler: await load('provider-info'),
      event: {
        method: 'GET',
        path: '/v2/providers/REGISTRY/sidn/info',
        resource: '/v2/providers/REGISTRY/{name}/info',
        pathParameters: { name: 'sidn' },
      },
      call: getItem(keys.provider('REGISTRY', 'sidn')),
    },
    {
      name: 'price list',
      bare: 'Query price list',
      handler: await load('pricelist'),
      event: {
        method: 'GET',
        path: '/v2/customers/demo/pricelist',
        resource: '/v2/customers/{customer}/pricelist',
        pathParameters: { customer: 'demo' },
      },
      call: query(keys.priceList('demo').pk),
    },
    {
      name: 'zone (JSON)',
      bare: "Query the name's own items (the caller's), then the zone's records",
      handler: await load('zone'),
      event: {
        method: 'GET',
        path: '/v2/domains/demo-shop.nl/zone',
        resource: '/v2/domains/{domainName}/zone',
        pathParameters: { domainName: 'demo-shop.nl' },
      },
      call: async () => {
        await queryAll({
          KeyConditionExpression: 'pk = :pk AND sk < :records',
          FilterExpression: 'customer = :owner',
          ExpressionAttributeValues: { ':pk': keys.domainCollection('demo-shop.nl').pk, ':records': 'ZONE#', ':owner': 'demo' },
        });
        await queryAll({
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.domainCollection('demo-shop.nl').pk, ':prefix': 'ZONE#' },
        });
      },
    },
    {
      name: 'process info (certificate)',
      bare: "Query process, the caller's item",
      handler: await load('process-info'),
      event: {
        method: 'GET',
        path: '/v2/processes/501/info',
        resource: '/v2/processes/{processId}/info',
        pathParameters: { processId: '501' },
      },
      call: ownedQuery(keys.processById(501)),
    },
    {
      name: 'process',
      bare: "Query process, the caller's item",
      handler: await load('process'),
      event: {
        method: 'GET',
        path: '/v2/processes/501',
        resource: '/v2/processes/{processId}',
        pathParameters: { processId: '501' },
      },
      call: ownedQuery(keys.processById(501)),
    },
  ];
  const overheadRows: (string | number)[][] = [];
  for (const g of gets) {
    const t = await quietly(() => timePair(() => invoke(g.handler, g.event), g.call, 400, 60));
    const ratio = percentile(t.a, 50) / percentile(t.b, 50);
    overheadRows.push([
      g.name,
      ms(percentile(t.a, 50)),
      ms(percentile(t.a, 99)),
      g.bare,
      ms(percentile(t.b, 50)),
      ms(percentile(t.b, 99)),
      `${ratio.toFixed(2)}x`,
      `<= ${budgets.handlerRatio}x`,
      mark(ratio <= budgets.handlerRatio),
    ]);
  }
  table(
    'Handler overhead: each GET through its real handler vs its bare DynamoDB call (ms, 400 runs each, interleaved)',
    ['endpoint', 'handler p50', 'handler p99', 'bare call', 'bare p50', 'bare p99', 'p50 ratio', 'budget', ''],
    overheadRows,
  );

  // ---------------------------------------------------------------- 2b. another customer's object vs a missing one
  // Both answer 404 with the same calls (asserted in test/round-trips.test.ts); here is what they take.
  const objectRuns = 300;
  const renewHandler = await load('renew');
  const { benchCsr } = await import('./scenarios.ts');
  const renewBody = (id: number) => ({
    method: 'POST',
    path: `/v2/ssl/certificates/${id}/renew`,
    resource: '/v2/ssl/certificates/{certificateId}/renew',
    pathParameters: { certificateId: String(id) },
    query: { quote: 'true' },
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ period: 12, csr: benchCsr }),
  });
  const objects: { name: string; handler: Handler; foreign: Parameters<typeof apiEvent>[0]; missing: Parameters<typeof apiEvent>[0] }[] = [
    {
      name: 'zone',
      handler: await load('zone'),
      foreign: {
        method: 'GET',
        path: '/v2/domains/other-site.com/zone',
        resource: '/v2/domains/{domainName}/zone',
        pathParameters: { domainName: 'other-site.com' },
      },
      missing: {
        method: 'GET',
        path: '/v2/domains/nosuch-site.com/zone',
        resource: '/v2/domains/{domainName}/zone',
        pathParameters: { domainName: 'nosuch-site.com' },
      },
    },
    {
      name: 'process info',
      handler: await load('process-info'),
      foreign: {
        method: 'GET',
        path: '/v2/processes/601/info',
        resource: '/v2/processes/{processId}/info',
        pathParameters: { processId: '601' },
      },
      missing: {
        method: 'GET',
        path: '/v2/processes/699/info',
        resource: '/v2/processes/{processId}/info',
        pathParameters: { processId: '699' },
      },
    },
    {
      name: 'process',
      handler: await load('process'),
      foreign: { method: 'GET', path: '/v2/processes/601', resource: '/v2/processes/{processId}', pathParameters: { processId: '601' } },
      missing: { method: 'GET', path: '/v2/processes/699', resource: '/v2/processes/{processId}', pathParameters: { processId: '699' } },
    },
    { name: 'renew (quote)', handler: renewHandler, foreign: renewBody(2001), missing: renewBody(2999) },
  ];
  const objectRows: (string | number)[][] = [];
  for (const o of objects) {
    const t = await quietly(() =>
      timePair(
        () => invoke(o.handler, o.foreign, 404),
        () => invoke(o.handler, o.missing, 404),
        objectRuns,
        60,
      ),
    );
    const [foreign, missing] = [percentile(t.a, 50), percentile(t.b, 50)];
    objectRows.push([o.name, ms(foreign), ms(missing), ms(foreign - missing)]);
  }
  table(
    `Another customer's object vs a missing one: both 404 with the same calls (ms, medians of ${objectRuns} runs each, interleaved)`,
    ['endpoint', "another customer's p50", 'missing p50', 'difference'],
    objectRows,
  );

  // ---------------------------------------------------------------- 3. scale
  const { writeBigPriceList } = await import('./big-data.ts');
  const scaleCustomer = 'bench-scale';
  const entries = 5000;
  await writeBigPriceList(scaleCustomer, entries);
  const pricelist = await load('pricelist');
  const principal = { customer: scaleCustomer, user: 'bench', permissions: [] };
  const scaleEvent = {
    method: 'GET',
    path: `/v2/customers/${scaleCustomer}/pricelist`,
    resource: '/v2/customers/{customer}/pricelist',
    pathParameters: { customer: scaleCustomer },
    principal,
  };
  let pages = 0;
  const rawQuery = async () => {
    pages = 0;
    let start: Record<string, unknown> | undefined;
    let count = 0;
    do {
      const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
      const out = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.priceList(scaleCustomer).pk },
          ExclusiveStartKey: start,
        }),
      );
      count += out.Items?.length ?? 0;
      pages++;
      start = out.LastEvaluatedKey;
    } while (start);
    if (count !== entries) throw new Error(`raw Query found ${count} entries`);
  };
  const scaleRuns = 60;
  const scale = await quietly(() => timePair(() => invoke(pricelist, scaleEvent), rawQuery, scaleRuns, 10));
  const scaleRatio = percentile(scale.a, 50) / percentile(scale.b, 50);
  table(
    `Scale: price list with ${entries.toLocaleString('en')} entries (ms, ${scaleRuns} runs each, interleaved; the Query takes ${pages} page${pages === 1 ? '' : 's'} of at most 1 MB)`,
    ['path', 'p50', 'p99', 'p50 ratio', 'budget', ''],
    [
      [
        'handler (GET /v2/customers/{customer}/pricelist)',
        ms(percentile(scale.a, 50)),
        ms(percentile(scale.a, 99)),
        `${scaleRatio.toFixed(2)}x`,
        `<= ${budgets.scaleRatio}x`,
        mark(scaleRatio <= budgets.scaleRatio),
      ],
      ['raw paged Query of the partition', ms(percentile(scale.b, 50)), ms(percentile(scale.b, 99)), '1.00x', '', ''],
    ],
  );

  // The process list at 10,000 and 100,000 processes (bench/process-list.ts).
  const { recordTableCalls } = await import('../test/support/sdk-calls.ts');
  await (await import('./process-list.ts')).benchProcessList();
  // The notification queue at 20 and 21,000 notifications (bench/notification-list.ts).
  await (await import('./notification-list.ts')).benchNotificationList();
  // The contact list of a customer with 10,000 contacts (bench/contact-list.ts).
  await (await import('./contact-list.ts')).benchContactList();

  // ---------------------------------------------------------------- 4. real sizes
  const { bigListCustomer, bigListEntries, bigZoneName, bigZoneRecords, writeBigZone } = await import('./big-data.ts');
  await writeBigZone();
  await writeBigPriceList();
  // As a load does after writing a list: its snapshot built (shared/pricing/price-list-snapshot.ts).
  await (await import('../shared/pricing/price-list-snapshot.ts')).refreshPriceSnapshot(bigListCustomer);
  const zoneHandler = await load('zone');
  type Result = { statusCode: number; body: string; isBase64Encoded?: boolean; headers?: Record<string, unknown> };
  const bigAnswer = async (handler: Handler, parts: Parameters<typeof apiEvent>[0]) => {
    const event = apiEvent(parts);
    const result = (await handler(event, lambdaContext('bench', event.requestContext.requestId))) as unknown as Result;
    if (result.statusCode !== 200) throw new Error(`${parts.path} answered ${result.statusCode}`);
    return result;
  };
  const wire = (r: Result) => (r.isBase64Encoded ? Buffer.from(r.body, 'base64').length : Buffer.byteLength(r.body));
  const big: { name: string; handler: Handler; parts: Parameters<typeof apiEvent>[0]; raw: () => Promise<unknown>; runs: number }[] = [
    {
      name: `zone of ${bigZoneRecords.toLocaleString('en')} records (JSON)`,
      handler: zoneHandler,
      parts: {
        method: 'GET',
        path: `/v2/domains/${bigZoneName}/zone`,
        resource: '/v2/domains/{domainName}/zone',
        pathParameters: { domainName: bigZoneName },
      },
      raw: query(keys.domainCollection(bigZoneName).pk),
      runs: 20,
    },
    {
      name: `price list of ${bigListEntries.toLocaleString('en')} entries`,
      handler: pricelist,
      parts: {
        method: 'GET',
        path: `/v2/customers/${bigListCustomer}/pricelist`,
        resource: '/v2/customers/{customer}/pricelist',
        pathParameters: { customer: bigListCustomer },
        principal: { customer: bigListCustomer, user: 'bench', permissions: [] },
      },
      raw: query(keys.priceList(bigListCustomer).pk),
      runs: 8,
    },
  ];
  const sizeRows: (string | number)[][] = [];
  const timeRows: (string | number)[][] = [];
  for (const b of big) {
    const withCoding = (coding: string) => ({ ...b.parts, headers: { 'Accept-Encoding': coding } as Record<string, string> });
    const plain = await quietly(() => bigAnswer(b.handler, withCoding('identity')).catch(() => undefined));
    const gzip = await quietly(() => bigAnswer(b.handler, withCoding('gzip')));
    const br = await quietly(() => bigAnswer(b.handler, withCoding('br')));
    const plainBytes = gunzipSync(Buffer.from(gzip.body, 'base64')).length;
    const smaller = plainBytes / wire(gzip);
    sizeRows.push([
      b.name,
      kb(plainBytes),
      plain ? 'sent plain' : '406 (over 6 MB)',
      kb(wire(gzip)),
      `${smaller.toFixed(1)}x`,
      kb(wire(br)),
      `${(plainBytes / wire(br)).toFixed(1)}x`,
      b.name.startsWith('price') ? `>= ${budgets.compressedSmaller}x` : '',
      b.name.startsWith('price') ? mark(smaller >= budgets.compressedSmaller) : '',
    ]);
    const trips = await quietly(() => recordTableCalls(() => bigAnswer(b.handler, withCoding('gzip'))));
    const rawTrips = await recordTableCalls(b.raw);
    const t = await quietly(() => timePair(() => bigAnswer(b.handler, withCoding('gzip')), b.raw, b.runs, 2));
    const ratio = percentile(t.a, 50) / percentile(t.b, 50);
    timeRows.push([
      b.name,
      ms(percentile(t.a, 50)),
      ms(percentile(t.a, 99)),
      trips.calls.map((c) => c.replace(/Command$/, '')).join(' '),
      ms(percentile(t.b, 50)),
      rawTrips.calls.length,
      `${ratio.toFixed(2)}x`,
      `<= ${budgets.scaleRatio}x`,
      mark(ratio <= budgets.scaleRatio),
    ]);
  }
  table(
    'Real sizes: through the handler with `Accept-Encoding: gzip` (compression included) vs the raw paged Query (ms, interleaved; zone 20 runs, price list 8)',
    ['request', 'handler p50', 'handler p99', 'handler calls', 'raw Query p50', 'raw Query pages', 'p50 ratio', 'budget', ''],
    timeRows,
    ['handler calls'],
  );
  table(
    'Real sizes: bytes on the wire (KB = 1024 bytes; plain = the JSON before any coding)',
    ['answer', 'plain KB', 'without compression', 'gzip KB', 'gzip smaller', 'br KB', 'br smaller', 'budget', ''],
    sizeRows,
  );
  // The 60,000-entry price list's first request, before and after its snapshot (bench/pricelist.ts).
  await (await import('./pricelist.ts')).benchPriceListFirst();

  // ---------------------------------------------------------------- 5. cold start
  const { benchColdStart } = await import('./cold-start.ts');
  const runs = 15;
  await benchColdStart(outDir, runs, budgets.bundleBytes);

  // What the JSON body parser of the POST functions adds to their import (bench/json-parser-cost.ts).
  const { jsonParserImportCost } = await import('./json-parser-cost.ts');
  const parserCost = await jsonParserImportCost(outDir, runs);
  table(
    `JSON body parser: the baseline (document client) with @middy/http-json-body-parser beside it, as transfer, renew and resend hold it (its @middy/util loads node:http at import); fresh node per import, median of ${runs} rounds`,
    ['bundle', 'import ms', 'vs baseline', 'added ms', 'added KB'],
    [
      ['baseline: document client only', ms(parserCost.baselineMs), '1.00x', '', ''],
      [
        'baseline + @middy/http-json-body-parser',
        ms(parserCost.withParserMs),
        `${parserCost.ratio.toFixed(2)}x`,
        ms(parserCost.addedMs),
        kb(parserCost.addedBytes),
      ],
    ],
  );

  // The trimmed bundle still finds its credentials (environment only) and signs its requests.
  const { invokeBundle } = await import('./bundles.ts');
  const providerBundle = join(outDir, 'provider-info', 'index.mjs');
  const event = apiEvent({
    method: 'GET',
    path: '/v2/providers/REGISTRY/sidn/info',
    resource: '/v2/providers/REGISTRY/{name}/info',
    pathParameters: { name: 'sidn' },
  });
  const answer = (await invokeBundle(providerBundle, event, { endpoint: dynamo.endpoint, table: tableName() })) as { statusCode: number };
  console.log(
    `Deployed provider-info bundle in a fresh process with environment credentials only, against DynamoDB Local: HTTP ${answer.statusCode} ${mark(answer.statusCode === 200)}`,
  );

  // 7. DNS: a zone write to its answer on DNS, and records per second pushed (bench/dns.ts).
  const { measureDns } = await import('./dns.ts');
  await measureDns(table);
} finally {
  rmSync(outDir, { recursive: true, force: true });
  await dynamo.stop();
}

// 7. ACME: a renewal to a downloadable certificate against Pebble, in a process of its own (the
// functions there run the `acme` authority integration; bench/acme.ts).
{
  const { spawnSync } = await import('node:child_process');
  const env = { ...process.env };
  delete env.DYNAMODB_ENDPOINT;
  spawnSync(join(import.meta.dirname, '..', 'node_modules', '.bin', 'tsx'), [join(import.meta.dirname, 'acme.ts')], {
    stdio: 'inherit',
    env,
  });
}

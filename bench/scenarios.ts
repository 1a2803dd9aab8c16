import type { Context, ScheduledEvent } from 'aws-lambda';
import { handler as dcvCheck } from '../functions/dcv-check/handler.ts';
import { handler as transferPoll } from '../functions/transfer-poll/handler.ts';
import { getDomainAndZone, ownFromTable } from '../shared/db/repositories/zones.ts';
import { zoneById, zoneByIdFromTable } from '../shared/dns/get-zone.ts';
import { type ApiResponse, call } from '../test/support/api.ts';
import { renew, testCertificate } from '../test/support/certificates.ts';
import { makeCsr } from '../test/support/csr.ts';
import { fullItemsRead, recordTableCalls, type TableCall } from '../test/support/sdk-calls.ts';
import { sandboxDomain } from '../test/support/transfer.ts';
import { loadScaleProcesses, scaleIdentifier, scaleKey } from './process-scale.ts';

/**
 * The requests whose DynamoDB calls are counted, by the benchmark (bench/run.ts) and by the test
 * suite (test/round-trips.test.ts), in this order, against a table holding the demo data. Each
 * goes through the local gateway with a warm API key (the authorizer's answer cached, as API
 * Gateway caches it), and every call is counted at the SDK client and attributed by partition:
 * the request's own data, the Idempotency-Key record, the sandbox registry (a stand-in for the
 * registry's EPP interface, not the service's data) and the API-key lookup.
 */

export type Budget =
  /** GET: exactly this many calls in all. */
  | { kind: 'exactly'; calls: number }
  /** POST: at most this many calls for the request's own data (idempotency and registry apart). */
  | { kind: 'own-at-most'; calls: number }
  /** Scheduled jobs: no budget but no Scan. */
  | { kind: 'no-scan' };

export interface Scenario {
  name: string;
  endpoint: string;
  budget: Budget;
  /** Expected HTTP status (jobs: none). */
  status?: number;
  /** Not counted: what must happen first (warm caches). */
  prepare?: () => Promise<unknown>;
  run: () => Promise<ApiResponse | unknown>;
}

/** Calls of one scenario, by whose data they touch. */
export interface RoundTrips {
  name: string;
  endpoint: string;
  budget: Budget;
  status?: number;
  total: number;
  own: number;
  idempotency: number;
  registry: number;
  authorizer: number;
  scans: number;
  commands: string[];
  /** Items the calls read (Query scanned counts, GetItem and BatchGet items). */
  read: number;
  /** Of those, whole items: all but the entries of keys-only indexes (an offset skipped over keys). */
  fullItems: number;
  withinBudget: boolean;
}

/** Whose data a call touches, by the partitions it names (shared/db/keys.ts prefixes). */
export function attribute(call: TableCall): 'idempotency' | 'registry' | 'authorizer' | 'own' {
  const all = (prefix: string) => call.partitions.length > 0 && call.partitions.every((p) => p.startsWith(prefix));
  if (all('IDEMPOTENCY#')) return 'idempotency';
  if (all('REGISTRYDOMAIN#')) return 'registry';
  if (all('APIKEY#')) return 'authorizer';
  return 'own';
}

/** The CSR the renew scenarios send (and the benchmark's renew timings). */
export const benchCsr = makeCsr({ subject: 'CN=www.demo-shop.nl, O=Demo Hosting B.V., C=NL', san: ['www.demo-shop.nl', 'demo-shop.nl'] });
const csr = benchCsr;
const transferBody = { customer: 'demo', registrant: 'demo-registrant' };
const get =
  (path: string, headers: Record<string, string> = {}) =>
  () =>
    call('GET', path, { headers });
const post =
  (path: string, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    call('POST', path, { body, headers });
const scheduled = { 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
const jobContext = { awsRequestId: 'bench', functionName: 'job' } as Context;

let transferProcessId: number | undefined;

/**
 * Renew: four calls of its own (the certificate alone first, then the counters and zone headers,
 * the product's prices, and the transaction), plus one Query of the records of each of the
 * caller's managed zones its names fall in (one here: demo-shop.nl), since a zone's records are
 * items of their own (docs/performance.md).
 */
const renewBudget: Budget = { kind: 'own-at-most', calls: 5 };
/** Processes of the customer `scale` for the list scenarios (loaded once, by the first of them). */
export const scaleProcesses = 10_000;
let scaleLoaded: Promise<void> | undefined;
/** Loads the scale customer's processes once (the list scenarios and the benchmark's process list share them). */
export const withScale = async () => {
  scaleLoaded ??= loadScaleProcesses(scaleProcesses).then(async () => {
    // The key's first use runs the authorizer (uncounted); later ones hit its cache.
    await call('GET', '/v2/processes?limit=1', { key: scaleKey });
  });
  await scaleLoaded;
};
const listAtScale = (query: string) => () => call('GET', `/v2/processes?${query}`, { key: scaleKey });
/**
 * The shapes of the process list counted at scale (test/round-trips.test.ts asserts their calls
 * and items; the benchmark times them at 10,000 and 100,000 processes): no filter, each exact
 * filter, without the count, the count alone, offsets, a search and an export.
 */
export const processListShapes = (identifier: string, processes: number): [name: string, query: string][] => [
  [`first page (${processes.toLocaleString('en')} processes)`, ''],
  ['exact status', 'status=RUNNING'],
  ['exact type', 'type=certificate'],
  ['exact action', 'action=transfer'],
  ['exact identifier', `identifier=${identifier}`],
  ['detailStatus=SSL_REQUIRES_ATTENTION', 'detailStatus=SSL_REQUIRES_ATTENTION'],
  ['total=false', 'total=false'],
  ['limit=0', 'limit=0'],
  ['offset 0', 'offset=0'],
  ['offset 1000', 'offset=1000'],
  ['offset 9990', 'offset=9990'],
  ['exact status, offset 9850', 'status=COMPLETED&offset=9850'],
  ['exact status, offset 9990', 'status=COMPLETED&offset=9990'],
  ['q', `q=${identifier.slice(0, 12)}`],
  ['export', 'export=true'],
  ['type, offset 9950', 'type=domain&offset=9950'],
  ['exact action renew', 'action=renew'],
  ['identifier:like', 'identifier:like=www.*'],
  ['createdDate:gt', 'createdDate:gt=2026-05-31'],
  ['status and type', 'status=RUNNING&type=certificate'],
  // Before and after in one run: the same type and action filters as `in` of one value, which no
  // listing answers, so they are checked on the customer's summaries as every type and action
  // filter was before the listings by type and action.
  ['exact type, as before (summaries)', 'type:in=certificate'],
  ['type, offset 9950, as before (summaries)', 'type:in=domain&offset=9950'],
  ['exact action renew, as before (summaries)', 'action:in=renew'],
  // The status listings' deep offsets, oldest first and with a type.
  ['exact status, oldest first, offset 9850', 'status=COMPLETED&order=id&offset=9850'],
  ['exact status and type, offset 9850', 'status=COMPLETED&type=domain&offset=9850'],
];

/** A fresh pending transfer of demo (cancel and resend act on it): its process id. */
let fresh = 0;
async function pendingTransfer(stage: 'pending' | 'pendingfoa'): Promise<number> {
  const name = `bench-${stage}-${++fresh}-${process.pid}.com`;
  await sandboxDomain(name, { transfer: { stages: [{ status: stage, seconds: 86_400 }], outcome: 'completed' } });
  const res = await call('POST', `/v2/domains/${name}/transfer`, { body: { ...transferBody, authcode: 'TEST-CODE' } });
  return Number(res.headers['x-process-id']);
}
/** A fresh open renewal of demo (DNS DCV records in the managed zone, or an EMAIL validation): its process id. */
async function openRenewal(dcv?: unknown[]): Promise<number> {
  const id = (await testCertificate()).id;
  const res = await renew(id, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }), ...(dcv ? { dcv } : {}) });
  return Number(res.headers['x-process-id']);
}
let target = 0;

/** The scenarios, in the order they must run (later ones read what earlier ones created). */
export const scenarios: Scenario[] = [
  {
    name: 'provider info',
    endpoint: 'GET /v2/providers/REGISTRY/{name}/info',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/providers/REGISTRY/sidn/info'),
  },
  {
    name: 'price list',
    endpoint: 'GET /v2/customers/{customer}/pricelist',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/customers/demo/pricelist'),
  },
  {
    name: 'price list in USD (rates cached)',
    endpoint: 'GET /v2/customers/{customer}/pricelist',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    prepare: get('/v2/customers/demo/pricelist?currency=USD'),
    run: get('/v2/customers/demo/pricelist?currency=USD'),
  },
  {
    name: 'zone (JSON)',
    endpoint: 'GET /v2/domains/{domainName}/zone',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/domains/demo-shop.nl/zone'),
  },
  {
    name: 'zone (zone file)',
    endpoint: 'GET /v2/domains/{domainName}/zone',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/domains/demo-shop.nl/zone', { Accept: 'text/dns' }),
  },
  {
    name: 'zone by id',
    endpoint: 'GET /v2/dns/zones/{zoneId}',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/dns/zones/101'),
  },
  {
    name: 'process info, certificate',
    endpoint: 'GET /v2/processes/{processId}/info',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    // A warm function has the authority (configuration) cached.
    prepare: get('/v2/processes/502/info'),
    run: get('/v2/processes/501/info'),
  },
  {
    name: 'process info, acme',
    endpoint: 'GET /v2/processes/{processId}/info',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/processes/502/info'),
  },
  {
    name: 'transfer, quote',
    endpoint: 'POST /v2/domains/{domainName}/transfer?quote=true',
    budget: { kind: 'own-at-most', calls: 3 },
    status: 200,
    run: post('/v2/domains/transfer-now.nl/transfer?quote=true', { ...transferBody, authcode: 'NL-TRANSFER-2026' }),
  },
  {
    name: 'transfer, completed at once',
    endpoint: 'POST /v2/domains/{domainName}/transfer',
    budget: { kind: 'own-at-most', calls: 3 },
    status: 200,
    run: async () => {
      const res = await call('POST', '/v2/domains/transfer-now.nl/transfer', { body: { ...transferBody, authcode: 'NL-TRANSFER-2026' } });
      transferProcessId = Number(res.headers['x-process-id']);
      return res;
    },
  },
  {
    name: 'transfer, pending',
    endpoint: 'POST /v2/domains/{domainName}/transfer',
    budget: { kind: 'own-at-most', calls: 3 },
    status: 202,
    run: post('/v2/domains/transfer-wait.com/transfer', { ...transferBody, authcode: 'COM-TRANSFER-2026', zone: { service: 'BASIC' } }),
  },
  {
    name: 'transfer, pending, Idempotency-Key',
    endpoint: 'POST /v2/domains/{domainName}/transfer',
    budget: { kind: 'own-at-most', calls: 3 },
    status: 202,
    run: post(
      '/v2/domains/transfer-foa.net/transfer',
      { ...transferBody, authcode: 'NET-TRANSFER-2026' },
      { 'Idempotency-Key': 'bench-transfer-foa' },
    ),
  },
  {
    // The same request again with its key: the claim is refused and the stored answer read.
    name: 'transfer, pending, Idempotency-Key, replayed',
    endpoint: 'POST /v2/domains/{domainName}/transfer',
    budget: { kind: 'own-at-most', calls: 0 },
    status: 202,
    run: post(
      '/v2/domains/transfer-foa.net/transfer',
      { ...transferBody, authcode: 'NET-TRANSFER-2026' },
      { 'Idempotency-Key': 'bench-transfer-foa' },
    ),
  },
  {
    name: 'process info, transfer',
    endpoint: 'GET /v2/processes/{processId}/info',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: () => call('GET', `/v2/processes/${transferProcessId}/info`),
  },
  {
    name: 'renew, quote',
    endpoint: 'POST /v2/ssl/certificates/{certificateId}/renew?quote=true',
    budget: renewBudget,
    status: 200,
    // A warm function has the certificate product (configuration) cached.
    prepare: () => renew(1001, { period: 12, csr }, { quote: true }),
    run: () => renew(1001, { period: 12, csr }, { quote: true }),
  },
  {
    name: 'renew, start',
    endpoint: 'POST /v2/ssl/certificates/{certificateId}/renew',
    budget: renewBudget,
    status: 202,
    run: () => renew(1001, { period: 12, csr }),
  },
  (() => {
    let id = 0;
    return {
      name: 'renew, start, Idempotency-Key',
      endpoint: 'POST /v2/ssl/certificates/{certificateId}/renew',
      budget: renewBudget,
      status: 202,
      prepare: async () => {
        id = (await testCertificate()).id;
      },
      run: () => renew(id, { period: 12, csr }, { headers: { 'Idempotency-Key': 'bench-renew' } }),
    } satisfies Scenario;
  })(),
  {
    name: 'transfer-poll job (2 transfers due)',
    endpoint: 'scheduled transfer-poll',
    budget: { kind: 'no-scan' },
    run: () => transferPoll({ ...scheduled, time: new Date(Date.now() + 30 * 86_400_000).toISOString() }, jobContext),
  },
  { name: 'dcv-check job', endpoint: 'scheduled dcv-check', budget: { kind: 'no-scan' }, run: () => dcvCheck(scheduled, jobContext) },
  // The follow-up operations (after the jobs, so that the objects they create do not change what the jobs see).
  {
    name: 'process',
    endpoint: 'GET /v2/processes/{processId}',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/processes/501'),
  },
  {
    name: 'transfer info',
    endpoint: 'GET /v2/domains/{domainName}/transfer/{processId}',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: () => call('GET', `/v2/domains/transfer-now.nl/transfer/${transferProcessId}`),
  },
  {
    name: 'TLD info',
    endpoint: 'GET /v2/tlds/{tld}/info',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/tlds/co.uk/info'),
  },
  {
    name: 'provider',
    endpoint: 'GET /v2/providers/{name}',
    budget: { kind: 'exactly', calls: 1 },
    status: 200,
    run: get('/v2/providers/nominet'),
  },
  ...processListShapes(scaleIdentifier(4321), scaleProcesses).map(
    ([name, query]): Scenario => ({
      name: `process list, ${name}`,
      endpoint: `GET /v2/processes${query === '' ? '' : `?${query}`}`,
      budget: { kind: 'no-scan' },
      status: 200,
      prepare: withScale,
      run: listAtScale(query),
    }),
  ),
  {
    name: 'cancel, pending transfer',
    endpoint: 'DELETE /v2/processes/{processId}',
    budget: { kind: 'own-at-most', calls: 2 },
    status: 200,
    prepare: async () => {
      target = await pendingTransfer('pending');
    },
    run: () => call('DELETE', `/v2/processes/${target}`),
  },
  {
    name: 'cancel, certificate request',
    endpoint: 'DELETE /v2/processes/{processId}',
    budget: { kind: 'own-at-most', calls: 3 },
    status: 200,
    prepare: async () => {
      target = await openRenewal();
    },
    run: () => call('DELETE', `/v2/processes/${target}`),
  },
  {
    name: 'cancel, Idempotency-Key',
    endpoint: 'DELETE /v2/processes/{processId}',
    budget: { kind: 'own-at-most', calls: 2 },
    status: 200,
    prepare: async () => {
      target = await pendingTransfer('pending');
    },
    run: () => call('DELETE', `/v2/processes/${target}`, { headers: { 'Idempotency-Key': `bench-cancel-${target}` } }),
  },
  {
    name: 'resend, FOA of a transfer',
    endpoint: 'POST /v2/processes/{processId}/resend',
    budget: { kind: 'own-at-most', calls: 2 },
    status: 200,
    prepare: async () => {
      target = await pendingTransfer('pendingfoa');
    },
    run: () => call('POST', `/v2/processes/${target}/resend`),
  },
  {
    name: 'resend, DCV e-mail',
    endpoint: 'POST /v2/processes/{processId}/resend',
    budget: { kind: 'own-at-most', calls: 2 },
    status: 200,
    prepare: async () => {
      target = await openRenewal([{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }]);
    },
    run: () => call('POST', `/v2/processes/${target}/resend`),
  },
];

/** Runs one scenario (its preparation uncounted) and counts its calls. */
export async function countRoundTrips(scenario: Scenario): Promise<RoundTrips> {
  await scenario.prepare?.();
  const { result, details } = await recordTableCalls(scenario.run);
  const by = { own: 0, idempotency: 0, registry: 0, authorizer: 0 };
  for (const d of details) by[attribute(d)]++;
  const status = scenario.status === undefined ? undefined : (result as ApiResponse).status;
  const scans = details.filter((d) => /^Scan/.test(d.command)).length;
  const b = scenario.budget;
  const withinBudget =
    scans === 0 &&
    status === scenario.status &&
    (b.kind === 'exactly' ? details.length === b.calls : b.kind === 'own-at-most' ? by.own <= b.calls && by.authorizer === 0 : true);
  return {
    name: scenario.name,
    endpoint: scenario.endpoint,
    budget: b,
    ...(status !== undefined ? { status } : {}),
    total: details.length,
    ...by,
    scans,
    commands: details.map((d) => d.command.replace(/Command$/, '')),
    read: details.reduce((n, d) => n + d.itemsRead, 0),
    fullItems: fullItemsRead(details),
    withinBudget,
  };
}

/** Warms the API key (the authorizer's answer is then cached) and runs every scenario in order. */
export async function countAllRoundTrips(): Promise<RoundTrips[]> {
  await call('GET', '/v2/providers/REGISTRY/sidn/info');
  const out: RoundTrips[] = [];
  for (const scenario of scenarios) out.push(await countRoundTrips(scenario));
  return out;
}

/** One zone read, counted: its calls and the items they read (ScannedCount). */
export interface ZoneReadCount {
  case: string;
  before: { calls: number; read: number };
  after: { calls: number; read: number };
}

/**
 * The zone GETs' reads before and after the caller's partitions (by name in gsi3, by id in gsi2),
 * in one run: demo's own zone, another customer's (other-site.com, id 103) and a missing one, each
 * read the old way (the table: by name, the name's items filtered to the caller, then the records;
 * by id, the header by id, again by name, its records and DNS standing) and the new (one Query).
 */
export async function zoneReadsBeforeAfter(): Promise<ZoneReadCount[]> {
  const settled = (read: () => Promise<unknown>) => async () => {
    await read().catch(() => undefined);
  };
  const cases: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ["by name: demo's own zone (demo-shop.nl)", () => ownFromTable('demo-shop.nl', 'demo'), () => getDomainAndZone('demo-shop.nl', 'demo')],
    [
      "by name: another customer's (other-site.com)",
      () => ownFromTable('other-site.com', 'demo'),
      () => getDomainAndZone('other-site.com', 'demo'),
    ],
    [
      'by name: a missing name (nosuch-site.com)',
      () => ownFromTable('nosuch-site.com', 'demo'),
      () => getDomainAndZone('nosuch-site.com', 'demo'),
    ],
    ["by id: demo's own zone (101)", () => zoneByIdFromTable('demo', 101), () => zoneById('demo', 101)],
    ["by id: another customer's (103)", () => zoneByIdFromTable('demo', 103), () => zoneById('demo', 103)],
    ['by id: a missing id (999)', () => zoneByIdFromTable('demo', 999), () => zoneById('demo', 999)],
  ];
  const count = async (read: () => Promise<unknown>) => {
    const { details } = await recordTableCalls(settled(read));
    return { calls: details.length, read: details.reduce((n, d) => n + d.itemsRead, 0) };
  };
  const out: ZoneReadCount[] = [];
  for (const [name, before, after] of cases) out.push({ case: name, before: await count(before), after: await count(after) });
  return out;
}

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type LocalRequest, type LocalResponse } from '../infra/local/gateway.ts';
import { jsonDepthExceeds } from '../shared/http/json-depth.ts';
import { duplicateKey } from '../shared/http/json-keys.ts';
import { maxBodyBytes, maxBodyDepth } from '../shared/http/pipeline.ts';
import { methodsOf, type Route, routes } from '../shared/routes.ts';
import { testCertificate } from './support/certificates.ts';
import { budget } from './support/contention.ts';
import { contractProblem } from './support/contract.ts';
import { makeCsr } from './support/csr.ts';
import {
  applyMutation,
  type FieldSpec,
  fieldPath,
  headers as headerSets,
  hostileJson,
  hostileString,
  listQuery,
  type Mutation,
  method as methods,
  mutations,
  type Path,
  pathSegment,
  queryString,
} from './support/fuzz.ts';
import { exampleParameters, exampleSample, fillPath } from './support/route-samples.ts';
import { changedKeys, recordWrites, snapshotTable } from './support/table-writes.ts';
import { sandboxDomain } from './support/transfer.ts';

/**
 * Property-based hardening of every endpoint through the local gateway (route table, real
 * authorizer, real handlers, DynamoDB Local). Every answer must be a 2xx (or a 304 to a
 * conditional GET) or a 4xx with the contract's error body; never a 5xx, a stack trace or internal
 * text; a refused or read-only request writes nothing. `npm run fuzz -- --runs N` runs the same
 * properties with N cases in total (FUZZ_RUNS); CI runs the plan below (2,000 cases).
 */

const plan = {
  transferBody: 340,
  renewBody: 260,
  contactBody: 200,
  bodySize: 120,
  paths: 400,
  queries: 240,
  listQueries: 200,
  methodsAndHeaders: 440,
  updateBody: 200,
  domainListQueries: 100,
} as const;
const ciTotal = Object.values(plan).reduce((a, b) => a + b, 0);
const longRuns = Number(process.env.FUZZ_RUNS) || 0;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const timeout = longRuns ? 0 : budget(60_000);

function runs(property: keyof typeof plan): number {
  return longRuns ? Math.max(1, Math.round((longRuns * plan[property]) / ciTotal)) : plan[property];
}

// Throttling is the abuse suite's subject; here it would only hide answers (a long run is fast).
const gateway = createGateway({ rateLimit: { rate: 1e9, burst: 1e9 } });
let casesRun = 0;
const statuses = new Map<string, number>();

// The fixtures: sandbox names to transfer, certificates to renew (fresh ones, another customer's, a missing one).
const poolDomains = Array.from({ length: 30 }, (_, i) => `fuzz-${i}.com`);
const transferDomains = [...poolDomains, 'transfer-now.nl', 'other-site.com', 'demo-shop.nl', 'unknown-name.com'];
const dvCsr = makeCsr({ cn: 'www.demo-shop.nl' });
const ovCsr = makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, ST=Noord-Holland, C=NL' });
let dvCertificates: number[] = [];
let ovCertificates: number[] = [];

const transferBase = {
  customer: 'demo',
  registrant: 'demo-registrant',
  privacyProtect: false,
  period: 12,
  authcode: 'TEST-CODE',
  autoRenew: true,
  ns: ['ns1.fuzz-host.example', 'ns2.fuzz-host.example'],
  designatedAgent: 'NONE',
  zone: { service: 'BASIC', template: 'demo-template', link: true, master: '8.8.4.4', dnssec: false },
  contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
  keyData: [
    {
      protocol: 3,
      flags: 257,
      algorithm: 13,
      publicKey: 'RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPLGh1eikgv7PuELQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==',
    },
  ],
  billables: [{ product: 'domain_com', action: 'TRANSFER', quantity: 1 }],
  transferContacts: ['REGISTRANT'],
  languageCode: 'de',
};
const transferFields: FieldSpec[] = [
  { path: ['customer'], kind: 'string' },
  { path: ['registrant'], kind: 'string' },
  { path: ['privacyProtect'], kind: 'boolean', optional: true },
  { path: ['period'], kind: 'integer', optional: true },
  { path: ['authcode'], kind: 'string', optional: true },
  { path: ['autoRenew'], kind: 'boolean', optional: true },
  { path: ['ns'], kind: 'array', optional: true },
  { path: ['ns', 1], kind: 'string' },
  { path: ['designatedAgent'], kind: 'string', optional: true },
  { path: ['zone'], kind: 'object', optional: true },
  { path: ['zone', 'service'], kind: 'string', optional: true },
  { path: ['zone', 'template'], kind: 'string', optional: true },
  { path: ['zone', 'link'], kind: 'boolean', optional: true },
  { path: ['zone', 'master'], kind: 'string', optional: true },
  { path: ['zone', 'dnssec'], kind: 'boolean', optional: true },
  { path: ['contacts'], kind: 'array', optional: true },
  { path: ['contacts', 0], kind: 'object' },
  { path: ['contacts', 0, 'role'], kind: 'string' },
  { path: ['contacts', 0, 'handle'], kind: 'string' },
  { path: ['keyData'], kind: 'array', optional: true },
  { path: ['keyData', 0], kind: 'object' },
  { path: ['keyData', 0, 'protocol'], kind: 'integer' },
  { path: ['keyData', 0, 'flags'], kind: 'integer' },
  { path: ['keyData', 0, 'algorithm'], kind: 'integer' },
  { path: ['keyData', 0, 'publicKey'], kind: 'string' },
  { path: ['billables'], kind: 'array', optional: true },
  { path: ['billables', 0], kind: 'object' },
  { path: ['billables', 0, 'product'], kind: 'string' },
  { path: ['billables', 0, 'action'], kind: 'string' },
  { path: ['billables', 0, 'quantity'], kind: 'integer', optional: true },
  { path: ['transferContacts'], kind: 'array', optional: true },
  { path: ['transferContacts', 0], kind: 'string' },
  { path: ['languageCode'], kind: 'string', optional: true },
];
const transferObjects: Path[] = [[], ['zone'], ['contacts', 0], ['keyData', 0], ['billables', 0]];

/** A domain update as the WHMCS module and the SDKs send one, every field set. */
const updateBase = {
  registrant: 'demo-registrant',
  privacyProtect: false,
  authcode: '',
  autoRenew: true,
  ns: ['ns1.fuzz.example', 'ns2.fuzz.example'],
  status: ['OK'],
  designatedAgent: 'NONE',
  contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
  keyData: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: 'AwEAAag=' }],
  dsData: [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }],
  languageCode: 'en',
  billables: [{ product: 'domain_com', action: 'PRIVACY_PROTECT', quantity: 1 }],
};
const updateFields: FieldSpec[] = [
  { path: ['registrant'], kind: 'string', optional: true },
  { path: ['privacyProtect'], kind: 'boolean', optional: true },
  { path: ['authcode'], kind: 'string', optional: true },
  { path: ['autoRenew'], kind: 'boolean', optional: true },
  { path: ['ns'], kind: 'array', optional: true },
  { path: ['ns', 0], kind: 'string' },
  { path: ['status'], kind: 'array', optional: true },
  { path: ['status', 0], kind: 'string' },
  { path: ['designatedAgent'], kind: 'string', optional: true },
  { path: ['contacts'], kind: 'array', optional: true },
  { path: ['contacts', 0], kind: 'object' },
  { path: ['contacts', 0, 'role'], kind: 'string' },
  { path: ['contacts', 0, 'handle'], kind: 'string' },
  { path: ['keyData'], kind: 'array', optional: true },
  { path: ['keyData', 0], kind: 'object' },
  { path: ['keyData', 0, 'protocol'], kind: 'integer' },
  { path: ['keyData', 0, 'flags'], kind: 'integer' },
  { path: ['keyData', 0, 'algorithm'], kind: 'integer' },
  { path: ['keyData', 0, 'publicKey'], kind: 'string' },
  { path: ['dsData'], kind: 'array', optional: true },
  { path: ['dsData', 0], kind: 'object' },
  { path: ['dsData', 0, 'keyTag'], kind: 'integer' },
  { path: ['dsData', 0, 'digest'], kind: 'string' },
  { path: ['languageCode'], kind: 'string', optional: true },
  { path: ['billables'], kind: 'array', optional: true },
  { path: ['billables', 0], kind: 'object' },
  { path: ['billables', 0, 'product'], kind: 'string' },
  { path: ['billables', 0, 'action'], kind: 'string' },
];

// A contact body as the PHP SDK sends it (customer and handle in it); each case a handle of its own.
const contactBase = {
  customer: 'demo',
  brand: 'default',
  name: 'Fuzz Contact',
  organization: 'Fuzz B.V.',
  addressLine: ['Fuzzstraat 1', 'Unit 2'],
  postalCode: '1234 AB',
  city: 'Amsterdam',
  state: 'Noord-Holland',
  country: 'NL',
  email: 'fuzz@example.nl',
  voice: '+31.201234567',
  fax: '+31.201234568',
  disclosedFields: ['name', 'email'],
};
const contactFields: FieldSpec[] = [
  { path: ['customer'], kind: 'string', optional: true },
  { path: ['brand'], kind: 'string', optional: true },
  { path: ['name'], kind: 'string' },
  { path: ['organization'], kind: 'string', optional: true },
  { path: ['addressLine'], kind: 'array' },
  { path: ['addressLine', 1], kind: 'string' },
  { path: ['postalCode'], kind: 'string' },
  { path: ['city'], kind: 'string' },
  { path: ['state'], kind: 'string', optional: true },
  { path: ['country'], kind: 'string' },
  { path: ['email'], kind: 'string' },
  { path: ['voice'], kind: 'string' },
  { path: ['fax'], kind: 'string', optional: true },
  { path: ['disclosedFields'], kind: 'array', optional: true },
  { path: ['disclosedFields', 0], kind: 'string' },
];

/** An update takes every field as optional (only the fields sent change). */
const contactUpdateFields: FieldSpec[] = contactFields.map((f) => (f.path.length === 1 ? { ...f, optional: true } : f));

const renewDvBase = {
  period: 12,
  csr: dvCsr,
  domainName: 'www.demo-shop.nl',
  uniqueValue: 'fuzz1',
  language: 'EN',
  authKey: false,
  dcv: [{ commonName: 'www.demo-shop.nl', type: 'DNS' }],
  billables: [{ product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1 }],
};
const renewOvBase = {
  product: 'ssl_sectigo_ov',
  period: 12,
  csr: ovCsr,
  organization: 'Demo Hosting B.V.',
  department: 'IT',
  state: 'Noord-Holland',
  address: 'Keizersgracht 100',
  postalCode: '1015 AA',
  city: 'Amsterdam',
  coc: '12345678',
  approver: { firstName: 'Anna', lastName: 'de Vries', jobTitle: 'Director', email: 'anna@demo-hosting.example', voice: '+31.612345678' },
  dcv: [{ commonName: 'demo-secure.com', type: 'EMAIL', email: 'admin@demo-secure.com' }],
  saEmail: 'anna@demo-hosting.example',
};
const renewFields: FieldSpec[] = [
  { path: ['product'], kind: 'string', optional: true },
  { path: ['period'], kind: 'integer' },
  { path: ['csr'], kind: 'string' },
  { path: ['domainName'], kind: 'string', optional: true },
  { path: ['organization'], kind: 'string', optional: true },
  { path: ['department'], kind: 'string', optional: true },
  { path: ['state'], kind: 'string', optional: true },
  { path: ['address'], kind: 'string', optional: true },
  { path: ['postalCode'], kind: 'string', optional: true },
  { path: ['city'], kind: 'string', optional: true },
  { path: ['coc'], kind: 'string', optional: true },
  { path: ['approver'], kind: 'object', optional: true },
  { path: ['approver', 'firstName'], kind: 'string' },
  { path: ['approver', 'lastName'], kind: 'string' },
  { path: ['approver', 'jobTitle'], kind: 'string', optional: true },
  { path: ['approver', 'email'], kind: 'string' },
  { path: ['approver', 'voice'], kind: 'string' },
  { path: ['dcv'], kind: 'array', optional: true },
  { path: ['dcv', 0], kind: 'object' },
  { path: ['dcv', 0, 'commonName'], kind: 'string' },
  { path: ['dcv', 0, 'type'], kind: 'string' },
  { path: ['saEmail'], kind: 'string', optional: true },
];
const renewDvFields: FieldSpec[] = [
  { path: ['period'], kind: 'integer' },
  { path: ['csr'], kind: 'string' },
  { path: ['domainName'], kind: 'string', optional: true },
  { path: ['uniqueValue'], kind: 'string', optional: true },
  { path: ['language'], kind: 'string', optional: true },
  { path: ['authKey'], kind: 'boolean', optional: true },
  { path: ['dcv', 0, 'type'], kind: 'string' },
  { path: ['billables', 0, 'quantity'], kind: 'integer', optional: true },
  { path: ['billables'], kind: 'array', optional: true },
  { path: ['billables', 0], kind: 'object' },
];

// Secrets sent in requests that no answer may ever contain.
const secretsOnTheWire = ['TEST-CODE', dvCsr.split('\n')[3] as string, ovCsr.split('\n')[3] as string, '+31.612345678'];

/** Items written by accepted requests (and idempotency records of refused ones, which must be gone again). */
const acceptedKeys = new Set<string>();
const transientKeys = new Set<string>();
let recorder: ReturnType<typeof recordWrites>;
let before: Map<string, string>;

/** Every route's example path parameters and body (its OpenAPI examples): the fuzzed requests start from them. */
const examples = new Map<string, { params: Record<string, string>; body: unknown }>();

/** The route's path with its example parameters, some replaced. */
const pathOf = (route: Route, replaced: Record<string, string> = {}) => {
  // The fuzzed values go in as they are (a hostile segment is the point); the examples' are encoded.
  const raw = Object.fromEntries(Object.keys(replaced).map((name) => [name, `\u0000${name}\u0000`]));
  const filled = fillPath(route, { ...(examples.get(route.id)?.params ?? {}), ...raw });
  return filled.replace(/%00([A-Za-z]+)%00/g, (_m, name: string) => replaced[name] as string);
};

/** The body a request to the route starts from: the transfer's and renewal's bases, else the route's example (or `{}`). */
const bodyOf = (route: Route) =>
  route.id === 'renew' ? renewDvBase : route.id === 'transfer' ? transferBase : (examples.get(route.id)?.body ?? {});

beforeAll(async () => {
  for (const route of routes) examples.set(route.id, { params: await exampleParameters(route), body: (await exampleSample(route)).body });
  await Promise.all(poolDomains.map((d) => sandboxDomain(d)));
  dvCertificates = [];
  for (let i = 0; i < 15; i++) dvCertificates.push((await testCertificate()).id);
  ovCertificates = [];
  for (let i = 0; i < 5; i++) {
    ovCertificates.push(
      (await testCertificate({ product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com', 'www.demo-secure.com'] }))
        .id,
    );
  }
  before = await snapshotTable();
  recorder = recordWrites();
});

afterAll(async () => {
  recorder.stop();
  // Only accepted requests changed the table (plus id counters: an allocated id that is never used is a gap;
  // and the checks' rate-limit counts, which every check takes).
  const changed = changedKeys(before, await snapshotTable());
  const unexplained = changed.filter((k) => !acceptedKeys.has(k) && !k.startsWith('COUNTER#') && !k.startsWith('RATELIMIT#'));
  expect(unexplained).toEqual([]);
  console.log(`fuzz: ${casesRun} cases; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  expect(casesRun).toBeGreaterThanOrEqual(longRuns || ciTotal);
});

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function bytes(body: string | undefined): number {
  return body === undefined ? 0 : Buffer.byteLength(body, 'utf8');
}

/** Sends one request and checks everything that must hold for any request. */
async function send(request: LocalRequest, readOnly: boolean): Promise<LocalResponse> {
  casesRun++;
  recorder.take();
  const res = await gateway.handle(request);
  const writes = recorder.take();
  const label = `${request.method} ${request.url.slice(0, 200)} body ${request.body === undefined ? '-' : `${bytes(request.body)} bytes: ${cut(request.body, 300)}${request.body.length > 300 ? ` ... ${request.body.slice(-300)}` : ''}`}`;
  const problem = contractProblem(res, { method: request.method, headers: request.headers as Record<string, string> });
  if (problem) throw new Error(`${problem}\n  request: ${label}\n  answer: ${res.status} ${res.body.slice(0, 500)}`);
  for (const secret of secretsOnTheWire) {
    // Secrets travel in bodies; a path or query may carry the same text on purpose and be echoed.
    if (res.body.includes(secret) && !decodeURIComponentSafe(request.url).includes(secret)) {
      throw new Error(`the answer echoes a secret (${secret.slice(0, 12)}...)\n  request: ${label}\n  answer: ${cut(res.body, 1000)}`);
    }
  }
  const type = res.status >= 400 && res.body !== '' ? (JSON.parse(res.body) as { type: string }).type : '';
  const key = `${res.status} ${type}`.trim();
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  // A check's count in its rate-limit window is taken by every call, read-only or refused (shared/domains/check.ts).
  const written = writes.flatMap((w) => w.keys).filter((k) => !k.startsWith('RATELIMIT#'));
  const accepted = res.status >= 200 && res.status < 300;
  if (readOnly && written.length > 0) throw new Error(`a read-only request wrote ${written.join(', ')}\n  request: ${label}`);
  if (accepted) for (const k of written) acceptedKeys.add(k);
  else {
    const stray = written.filter((k) => !k.startsWith('COUNTER#') && !k.startsWith('IDEMPOTENCY#'));
    if (stray.length > 0) throw new Error(`a refused request (${res.status}) wrote ${stray.join(', ')}\n  request: ${label}`);
    for (const k of written) if (k.startsWith('IDEMPOTENCY#')) transientKeys.add(k);
  }
  return res;
}

function parse(res: LocalResponse): Record<string, any> {
  return JSON.parse(res.body) as Record<string, any>;
}

/** What a one-field mutation of a valid body must answer, when that can be told in advance. */
function expectMutationAnswer(res: LocalResponse, body: string, m: Mutation, base: Record<string, unknown>): void {
  if (bytes(body) > maxBodyBytes) {
    expect(res.status, body.slice(0, 200)).toBe(413);
    return;
  }
  const answer = parse(res);
  if (jsonDepthExceeds(body, maxBodyDepth)) {
    expect(answer, res.body).toMatchObject({
      type: 'InvalidMessage',
      message: `The request body nests arrays and objects more than ${maxBodyDepth} levels deep.`,
    });
    return;
  }
  if (answer.type === 'InvalidMessage' && /^The request body gives the key .* more than once in one object\.$/.test(answer.message)) {
    // A key given twice in one object is refused before the body is validated (shared/http/json-keys.ts).
    expect(duplicateKey(body), body.slice(0, 300)).toBeDefined();
    return;
  }
  if (answer.type === 'InvalidMessage' && answer.message === 'Forbidden key in JSON body.') {
    // The JSON parser refuses prototype keys anywhere in a body (`__proto__`, `constructor.prototype`).
    expect(body).toMatch(/"(?:__proto__|prototype)"\s*:/);
    return;
  }
  if (m.kind === 'unknownKey') {
    const parent = m.parent.reduce<any>((node, k) => node[k], base) as Record<string, unknown>;
    if (Object.hasOwn(parent, m.key)) return; // a duplicate of a known key, not an unknown one
    expect(res.status, res.body).toBe(400);
    expect(parse(res), res.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: fieldPath([...m.parent, m.key]) });
  }
  if (m.kind === 'duplicate') {
    // A key given twice in one object is refused, whatever its values (shared/http/json-keys.ts);
    // a "duplicate" of a field the base body leaves out is that field given once.
    const parent = m.path.slice(0, -1).reduce<any>((node, k) => node?.[k], base);
    const key = m.path[m.path.length - 1] as string | number;
    if (parent !== null && typeof parent === 'object' && !Array.isArray(parent) && Object.hasOwn(parent, key)) {
      expect(res.status, body.slice(0, 300)).toBe(400);
      expect(answer.type, res.body).toBe('InvalidMessage');
    }
  }
  if (m.kind === 'wrongType') {
    expect(res.status, `${fieldPath(m.path)} = ${m.raw.slice(0, 100)}`).toBe(400);
    expect(answer.type, `${fieldPath(m.path)} = ${m.raw.slice(0, 100)}: ${res.body.slice(0, 300)}`).toBe('ConstraintViolationException');
    expect(answer.violations.map((v: { field: string }) => v.field)).toContain(fieldPath(m.path));
  }
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text);

/** Runs a property; a failure names the seed, the path and a shortened counterexample (bodies can be 64 KiB). */
const property = <T>(arb: fc.Arbitrary<T>, run: (value: T) => Promise<void>, numRuns: number) =>
  fc.assert(fc.asyncProperty(arb, run), {
    numRuns,
    ...(seed !== undefined ? { seed } : {}),
    endOnFailure: true,
    reporter: (details) => {
      if (!details.failed) return;
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(
        `Property failed after ${details.numRuns} cases (reproduce: FUZZ_SEED=${details.seed}, path ${details.counterexamplePath})\n` +
          `Counterexample: ${cut(fc.stringify(details.counterexample), 1500)}\n${cut(error, 3000)}`,
      );
    },
  });

/** The route a request reaches: the one of its path and method, if any. */
const routeOf = (path: string, method: string) => routes.find((r) => r.path === path && methodsOf(r).includes(method.toUpperCase()));
/** Whether a request to a route writes nothing when it succeeds: GETs that declare no write (a notification read marks it read), and quotes of transfer and renew. */
const readOnlyRoute = (route: Route | undefined, quote: boolean) =>
  route === undefined ||
  (route.method === 'GET' && !(route.table?.actions ?? []).some((a) => a === 'PutItem' || a === 'UpdateItem' || a === 'DeleteItem')) ||
  ((route.id === 'transfer' || route.id === 'renew') && quote);

describe('fuzzing every endpoint through the gateway', () => {
  it('transfer: a valid-looking body with one field broken answers 2xx or a contract 4xx and refusals write nothing', {
    timeout,
  }, async () => {
    await property(
      fc.record({ domain: fc.constantFrom(...transferDomains), quote: fc.boolean(), mutation: mutations(transferFields, transferObjects) }),
      async ({ domain, quote, mutation }) => {
        const body = applyMutation(transferBase, mutation);
        const res = await send(
          {
            method: 'POST',
            url: `/v2/domains/${domain}/transfer${quote ? '?quote=true' : ''}`,
            headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
            body,
          },
          quote,
        );
        expectMutationAnswer(res, body, mutation, transferBase);
      },
      runs('transferBody'),
    );
  });

  it('renew: a valid-looking body with one field broken answers 2xx or a contract 4xx and refusals write nothing', {
    timeout,
  }, async () => {
    const dv = fc.record({
      base: fc.constant(renewDvBase),
      id: fc.constantFrom(...dvCertificates, 2001, 999_999),
      mutation: mutations(renewDvFields, [[], ['dcv', 0], ['billables', 0]]),
    });
    const ov = fc.record({
      base: fc.constant(renewOvBase),
      id: fc.constantFrom(...ovCertificates, 1003),
      mutation: mutations(renewFields, [[], ['approver'], ['dcv', 0]]),
    });
    await property(
      fc.tuple(fc.oneof(dv, ov), fc.boolean()),
      async ([{ base, id, mutation }, quote]) => {
        const body = applyMutation(base, mutation);
        const res = await send(
          {
            method: 'POST',
            url: `/v2/ssl/certificates/${id}/renew${quote ? '?quote=true' : ''}`,
            headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
            body,
          },
          quote,
        );
        expectMutationAnswer(res, body, mutation, base);
      },
      runs('renewBody'),
    );
  });

  it('domain update: a valid-looking body with one field broken answers 2xx or a contract 4xx and refusals write nothing', {
    timeout,
  }, async () => {
    await property(
      fc.record({
        domain: fc.constantFrom('demo-secure.com', 'demo-shop.nl', 'other-site.com', 'unknown-name.com'),
        quote: fc.boolean(),
        mutation: mutations(updateFields, [[], ['contacts', 0], ['keyData', 0], ['dsData', 0], ['billables', 0]]),
      }),
      async ({ domain, quote, mutation }) => {
        const body = applyMutation(updateBase, mutation);
        const res = await send(
          {
            method: 'POST',
            url: `/v2/domains/${domain}/update?quote=${quote}`,
            headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
            body,
          },
          quote,
        );
        expectMutationAnswer(res, body, mutation, updateBase);
      },
      runs('updateBody'),
    );
  });

  it('contacts: a valid-looking body with one field broken answers 2xx or a contract 4xx and refusals write nothing', {
    timeout,
  }, async () => {
    await property(
      fc.oneof(
        fc.record({ update: fc.constant(false), mutation: mutations(contactFields, [[]]) }),
        fc.record({ update: fc.constant(true), mutation: mutations(contactUpdateFields, [[]]) }),
      ),
      async ({ update, mutation }) => {
        const body = applyMutation(contactBase, mutation);
        const handle = update ? 'demo-tech' : `fuzz-contact-${casesRun}`;
        const res = await send(
          {
            method: 'POST',
            url: `/v2/customers/demo/contacts/${handle}${update ? '/update' : ''}`,
            headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
            body,
          },
          false,
        );
        expectMutationAnswer(res, body, mutation, contactBase);
      },
      runs('contactBody'),
    );
  });

  it('answers 413 exactly for bodies over 64 KiB, whatever the characters', { timeout }, async () => {
    await property(
      fc.record({
        route: fc.constantFrom('transfer', 'renew'),
        delta: fc.integer({ min: -40, max: 40 }),
        pad: fc.constantFrom('a', 'é', '€', '😀', ' '),
      }),
      async ({ route, delta, pad }) => {
        const target = maxBodyBytes + delta;
        const base = route === 'transfer' ? transferBase : renewDvBase;
        const field = route === 'transfer' ? 'languageCode' : 'department';
        const empty = bytes(JSON.stringify({ ...base, [field]: '' }));
        const padBytes = Buffer.byteLength(pad);
        let filler = pad.repeat(Math.max(0, Math.floor((target - empty) / padBytes)));
        filler += 'a'.repeat(Math.max(0, target - empty - bytes(filler)));
        const body = JSON.stringify({ ...base, [field]: filler });
        const url =
          route === 'transfer'
            ? '/v2/domains/fuzz-0.com/transfer?quote=true'
            : `/v2/ssl/certificates/${dvCertificates[0]}/renew?quote=true`;
        const res = await send(
          { method: 'POST', url, headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' }, body },
          true,
        );
        if (bytes(body) > maxBodyBytes) expect(res.status).toBe(413);
        else expect(res.status).toBe(400);
      },
      runs('bodySize'),
    );
  });

  it('answers hostile path parameters and odd paths of every route with 2xx or a contract 4xx', { timeout }, async () => {
    // Each path parameter of each route of the table, the others at their examples' values ...
    const inRoutes = routes.flatMap((route) =>
      [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => ({ route, at: (p: string) => pathOf(route, { [m[1] as string]: p }) })),
    );
    // ... and paths beside the routes': a trailing slash, doubled or upper-case segments, unknown depths.
    const zone = routes.find((r) => r.id === 'zone') as Route;
    const odd = [
      (p: string) => `${pathOf(zone, { domainName: p })}/`,
      (p: string) => `/${pathOf(zone, { domainName: p })}`,
      (p: string) => pathOf(zone, { domainName: p }).replace('/v2/', '/V2/'),
      (p: string) => `/v2/domains/${p}/zone/${p}`,
      (p: string) => `/v2/processes/${p}/info/${p}`,
      (p: string) => `/v2/${p}`,
      (p: string) => `/${p}`,
      (p: string) => `/v2/providers?q=${p}`,
    ].map((at) => ({ route: undefined, at }));
    await property(
      fc.tuple(fc.constantFrom(...inRoutes, ...odd), pathSegment),
      async ([{ route, at }, segment]) => {
        const method = route?.method ?? 'GET';
        const quote = route?.id === 'transfer' || route?.id === 'renew';
        const withBody = method === 'POST' || method === 'PUT';
        await send(
          {
            method,
            url: `${at(segment)}${quote ? '?quote=true' : ''}`,
            headers: { Authorization: 'ApiKey demo-key', ...(withBody ? { 'Content-Type': 'application/json' } : {}) },
            ...(withBody && route ? { body: JSON.stringify(bodyOf(route)) } : {}),
          },
          readOnlyRoute(route, quote),
        );
      },
      runs('paths'),
    );
  });

  it('answers hostile query strings on every route with 2xx or a contract 4xx', { timeout }, async () => {
    await property(
      fc.tuple(fc.constantFrom(...routes), queryString, fc.constantFrom(...dvCertificates)),
      async ([route, query, certificate]) => {
        const path = pathOf(route, {
          ...(route.id === 'transfer' ? { domainName: 'fuzz-1.com' } : {}),
          ...(route.path.includes('{certificateId}') ? { certificateId: String(certificate) } : {}),
        });
        const post = route.method === 'POST' || route.method === 'PUT';
        const body = post ? JSON.stringify(bodyOf(route)) : undefined;
        // A transfer or renewal whose (last) `quote` is true (`true`, or PHP's `1`) changes nothing; other writes may succeed (then they wrote).
        const quotes = new URLSearchParams(query).getAll('quote');
        const last = quotes[quotes.length - 1]?.trim().toLowerCase();
        const quote = last === 'true' || last === '1';
        await send(
          {
            method: route.method,
            url: `${path}?${query}`,
            headers: { Authorization: 'ApiKey demo-key', ...(post ? { 'Content-Type': 'application/json' } : {}) },
            ...(body ? { body } : {}),
          },
          readOnlyRoute(route, quote),
        );
      },
      runs('queries'),
    );
  });

  it("answers the process list's parameters and filters, however combined, with 200 or a contract 400", { timeout }, async () => {
    await property(
      fc.tuple(listQuery, fc.constantFrom('demo-key', 'other-key')),
      async ([query, key]) => {
        const res = await send({ method: 'GET', url: `/v2/processes?${query}`, headers: { Authorization: `ApiKey ${key}` } }, true);
        if (res.status !== 200) {
          expect(res.status, res.body).toBe(400);
          expect(['ConstraintViolationException', 'ValidationError']).toContain(parse(res).type);
        }
      },
      runs('listQueries'),
    );
  });

  it("answers the domain list's parameters and filters, however combined, with 200 or a contract 400", { timeout }, async () => {
    await property(
      fc.tuple(listQuery, fc.constantFrom('demo-key', 'other-key')),
      async ([query, key]) => {
        const res = await send({ method: 'GET', url: `/v2/domains?${query}`, headers: { Authorization: `ApiKey ${key}` } }, true);
        if (res.status !== 200) {
          expect(res.status, res.body).toBe(400);
          expect(['ConstraintViolationException', 'ValidationError']).toContain(parse(res).type);
        }
      },
      runs('domainListQueries'),
    );
  });

  it('answers odd methods, headers and bodies on every route with 2xx, 405 or a contract 4xx', { timeout }, async () => {
    const bodies = fc.oneof(fc.constant(undefined), fc.constant('transfer-base'), fc.constant('renew-base'), hostileJson, hostileString);
    await property(
      fc.tuple(fc.constantFrom(...routes), methods, headerSets, bodies, fc.boolean()),
      async ([route, method, headers, bodyChoice, quote]) => {
        const path = pathOf(route, {
          ...(route.id === 'transfer' ? { domainName: `fuzz-${2 + (casesRun % 28)}.com` } : {}),
          ...(route.path.includes('{certificateId}') ? { certificateId: String(dvCertificates[casesRun % dvCertificates.length]) } : {}),
        });
        const body =
          bodyChoice === 'transfer-base'
            ? JSON.stringify(transferBase)
            : bodyChoice === 'renew-base'
              ? JSON.stringify(renewDvBase)
              : bodyChoice;
        const request: LocalRequest = {
          method,
          url: `${path}${quote ? '?quote=true' : ''}`,
          headers,
          ...(body !== undefined ? { body } : {}),
        };
        const reached = routeOf(route.path, method);
        const res = await send(request, readOnlyRoute(reached, quote));
        if (reached === undefined) {
          expect(res.status).toBe(405);
          const allowed = routes.filter((r) => r.path === route.path).flatMap(methodsOf);
          expect(res.headers.Allow ?? res.headers.allow).toBe(allowed.join(', '));
        }
      },
      runs('methodsAndHeaders'),
    );
  });

  it('leaves no idempotency record behind for a refused request', async () => {
    const snapshot = await snapshotTable();
    const left = [...transientKeys].filter((k) => snapshot.has(k) && !acceptedKeys.has(k));
    expect(left).toEqual([]);
  });
});

import { docsOf } from '../../functions/openapi/document.ts';
import { putDomain } from '../../shared/db/repositories/domains.ts';
import { recordZoneServed } from '../../shared/db/repositories/zone-dns.ts';
import { getZoneHead } from '../../shared/db/repositories/zones.ts';
import type { Route } from '../../shared/routes.ts';
import { call } from './api.ts';
import { testCertificate } from './certificates.ts';
import { makeCsr } from './csr.ts';
import { demoBody, sandboxDomain, transfer } from './transfer.ts';

/**
 * A request for every route of the table, so the route-wide suites (authorization, table grants,
 * HTTP, fuzz) cover a new route without being edited. A route's sample is its OpenAPI examples
 * (`functions/<dir>/openapi.ts`: path parameters, query, the first example body), which come from
 * the demo data; the few routes whose examples need a state the demo data does not hold declare it
 * here, in `setups`, and nowhere else.
 */

export interface RouteSample {
  method: Route['method'];
  /** Path and query string. */
  url: string;
  body?: unknown;
}

/** The query string of example values (a list repeats its parameter). */
function queryString(query: Record<string, string | string[]> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) for (const one of [value].flat()) params.append(name, one);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The route's path with these parameter values (encoded), every parameter named. */
export function fillPath(route: Pick<Route, 'id' | 'path'>, values: Record<string, string>): string {
  return route.path.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(`Route '${route.id}' has no example for its path parameter '${name}' (functions/<dir>/openapi.ts)`);
    return encodeURIComponent(value);
  });
}

/** The route's sample from its OpenAPI examples alone. */
export async function exampleSample(route: Route): Promise<RouteSample> {
  const { examples } = await docsOf(route);
  const body = Object.values(examples.body ?? {})[0]?.value;
  return {
    method: route.method,
    url: `${fillPath(route, examples.path ?? {})}${queryString(examples.query)}`,
    ...(body !== undefined ? { body } : {}),
  };
}

/** The path parameters of the route's examples. */
export async function exampleParameters(route: Route): Promise<Record<string, string>> {
  return { ...((await docsOf(route)).examples.path ?? {}) };
}

/**
 * The objects of the demo data that belong to another customer (`other`), and a value naming no
 * object, per path parameter: a route whose path names one of these answers another customer's
 * object exactly as a missing one (contract section 1; test/authorization.test.ts).
 */
export const foreignObjects: Readonly<Record<string, { foreign: string; missing: string }>> = {
  customer: { foreign: 'other', missing: 'nobody-here' },
  processId: { foreign: '601', missing: '999999' },
  certificateId: { foreign: '2001', missing: '999996' },
  domainName: { foreign: 'other-site.com', missing: 'no-such-name.com' },
  zoneId: { foreign: '103', missing: '999999' },
};

/** The parameter of the route's path that names another customer's object, if any (the first of the path). */
export function ownedParameter(route: Pick<Route, 'path'>): string | undefined {
  return [...route.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] as string).find((name) => name in foreignObjects);
}

/**
 * Routes the generic authorization check leaves to a test of their own, with the reason: the
 * parameter their path names is not an object the caller must own, or their answer is the caller's
 * own by design.
 */
export const ownershipExceptions: Readonly<Record<string, string>> = {
  transfer:
    "a name is nobody's object before its transfer: another customer's name answers like a registry lock (test/authorization.test.ts)",
  processes: "lists the caller's own processes: another customer's are never listed (test/authorization.test.ts)",
  domains: "lists the caller's own domains: another customer's are never listed (test/authorization.test.ts)",
  'domain-check':
    "a name's availability is the registry's answer for everyone: another customer's domain is unavailable, as any registered name is (test/domains-check.test.ts)",
  'dns-zones': "lists the caller's own zones: another customer's are never listed (test/authorization.test.ts)",
  certificates: "lists the caller's own certificates: another customer's are never listed (test/certificates-list.test.ts)",
  'dns-zone-create':
    "creates a zone of the caller: a name another customer's zone or domain holds is refused (test/authorization.test.ts, the zone API's case)",
  'domain-register':
    "a name is nobody's object before its registration: another customer's domain answers ObjectExists, as any registered name does (test/domains-register.test.ts)",
};

/** A transfer of the caller's, started for the purpose (the demo data holds none): its name and process id. */
let started = 0;
async function startedTransfer(): Promise<{ name: string; processId: string }> {
  const name = `sample-${process.pid}-${++started}.com`;
  await sandboxDomain(name);
  const res = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
  return { name, processId: String(res.headers['x-process-id']) };
}

/** A domain of the caller's for the life-cycle routes (the demo data's are left as they are): its name, deleted first when asked. */
let lifecycleDomains = 0;
async function lifecycleDomain(deleted = false): Promise<string> {
  const name = `sample-life-${process.pid}-${++lifecycleDomains}.nl`;
  await putDomain({
    domainName: name,
    customer: 'demo',
    registry: 'sidn',
    registrant: 'demo-registrant',
    contacts: [],
    ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
    keyData: [],
    privacyProtect: false,
    autoRenew: true,
    status: deleted ? ['REDEMPTION_PERIOD'] : ['OK'],
    ...(deleted ? { redemptionUntil: '2099-01-01T00:00:00Z' } : {}),
    createdDate: '2025-03-04T11:20:00Z',
    updatedDate: '2026-02-10T08:15:00Z',
    expiryDate: '2027-03-04T11:20:00Z',
  });
  return name;
}

/** The webhook of the demo customer, registered for the purpose (a test may have removed it). */
const withWebhook = async (sample: RouteSample) => {
  await call('PUT', '/v2/customers/demo/webhook', { body: { url: 'https://hooks.example.net/sample' } });
  return sample;
};

/** A DNSKEY as PowerDNS serves one (`257 3 13 <64 bytes, base64>`), made up: no provider runs in the route-wide suites. */
const sampleKey = (n: number) => `257 3 13 ${Buffer.alloc(64, n).toString('base64')}`;

/**
 * A signed zone of the caller, made for the purpose, and its standing as a PowerDNS serving
 * `dnskeys` would record it (the route-wide suites run no DNS provider): its id and name.
 */
let signedZones = 0;
async function servedSignedZone(dnskeys: string[]): Promise<{ id: number; name: string }> {
  const name = `sample-signed-${process.pid}-${++signedZones}.nl`;
  const created = await call('POST', '/v2/dns/zones', { body: { name, service: 'BASIC', dnssec: true } });
  await servedWith(name, dnskeys);
  return { id: created.body.id as number, name };
}

/** Records that PowerDNS serves the zone's current revision with these keys. */
async function servedWith(name: string, dnskeys: string[]): Promise<void> {
  const head = await getZoneHead(name, true);
  if (!head) throw new Error(`no zone ${name}`);
  const now = `${new Date().toISOString().slice(0, 19)}Z`;
  await recordZoneServed({
    domainName: name,
    customer: 'demo',
    provider: 'powerdns',
    zoneId: head.zone.id,
    revision: head.revision,
    ds: [],
    dnskeys,
    now,
  });
}

/** The routes whose examples need a state the demo data does not hold: the request, once that state is made. */
export const setups: Readonly<Record<string, (example: RouteSample) => Promise<RouteSample>>> = {
  'transfer-info': async (example) => {
    const { name, processId } = await startedTransfer();
    return { ...example, url: `/v2/domains/${name}/transfer/${processId}` };
  },
  'transfer-latest': async (example) => ({ ...example, url: `/v2/domains/${(await startedTransfer()).name}/transfer` }),
  'certificate-download': async (example) => {
    const withCsr = await testCertificate({
      processId: 79,
      csr: makeCsr({ cn: 'www.demo-shop.nl', san: ['www.demo-shop.nl'], key: 'p256' }),
    });
    return { ...example, url: `/v2/ssl/certificates/${withCsr.id}/download?format=CSR` };
  },
  notification: async (example) => {
    await startedTransfer();
    const listed = await call('GET', '/v2/customers/demo/notifications?limit=1');
    return { ...example, url: `/v2/customers/demo/notifications/${listed.body.entities[0].id}` };
  },
  'notification-poll': async (example) => {
    await startedTransfer();
    return example;
  },
  notifications: async (example) => {
    await startedTransfer();
    return example;
  },
  'dns-zone-key-rollover': async (example) => ({
    ...example,
    url: `/v2/dns/zones/${(await servedSignedZone([sampleKey(1)])).id}/key-rollover`,
  }),
  'process-ack-ds-update': async (example) => {
    const zone = await servedSignedZone([sampleKey(1)]);
    const started = await call('POST', `/v2/dns/zones/${zone.id}/key-rollover`);
    // The sync's push that serves the new key beside the old one.
    await servedWith(zone.name, [sampleKey(1), sampleKey(2)]);
    return { ...example, url: `/v2/processes/${started.headers['x-process-id']}/ack-ds-update` };
  },
  // A fresh free name each time: the example's name registers once.
  'domain-register': async (example) => ({
    ...example,
    url: example.url.replace('new-shop-example.com', `sample-${process.pid}-${++started}.com`),
  }),
  'domain-renew': async (example) => ({ ...example, url: `/v2/domains/${await lifecycleDomain()}/renew` }),
  'domain-delete': async (example) => ({ ...example, url: `/v2/domains/${await lifecycleDomain()}` }),
  'domain-restore': async (example) => ({ ...example, url: `/v2/domains/${await lifecycleDomain(true)}/restore` }),
  webhook: withWebhook,
  'webhook-dead-letters': withWebhook,
  'webhook-rotate': withWebhook,
  'webhook-delete': withWebhook,
};

/** The route's sample request, any state it needs made first. */
export async function sampleOf(route: Route): Promise<RouteSample> {
  const example = await exampleSample(route);
  return (await setups[route.id]?.(example)) ?? example;
}

/** Sends a route's sample through the local gateway with the demo key (or another). */
export async function sendSample(sample: RouteSample, key?: string | null) {
  return call(sample.method, sample.url, {
    ...(sample.body !== undefined ? { body: sample.body } : {}),
    ...(key !== undefined ? { key } : {}),
  });
}

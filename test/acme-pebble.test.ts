import { X509Certificate } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import * as x509 from '@peculiar/x509';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPebble, startPebble } from '../infra/local/pebble.ts';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { makeCsr } from './support/csr.ts';

/**
 * The ACME authority against a real Pebble (Debian's, fetched without root), External Account
 * Binding required and its default nonce rejection on, validating dns-01 through a real PowerDNS
 * that the DNS integration writes to. A renewal goes through the renew handler and the DCV job's
 * handler, and the certificate is checked as downloaded.
 */

let pdns: LocalPowerDns;
let pebble: LocalPebble;
// Loaded after the settings below are in place (the modules read them when they load).
let api: typeof import('./support/api.ts');
let certs: typeof import('./support/certificates.ts');
let dcvCheck: (event: ScheduledEvent, context: Context) => Promise<unknown>;
let db: typeof import('../shared/db/client.ts');
let accounts: typeof import('../shared/db/repositories/acme-accounts.ts');
let acmeAuthority: typeof import('../shared/certificates/acme-authority.ts');

const scheduled = { 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
const jobContext = { awsRequestId: 'acme-test', functionName: 'dcv-check' } as Context;

/** Every HTTP call acme-client makes to the CA, by method and path (counted per issuance). */
const caCalls: string[] = [];
/**
 * Every answer the CA gave, as `<status> <method> <path> [<problem type>]`: a call acme-client
 * sent again after a `badNonce` is two calls but one answer that did something.
 */
const caAnswers: string[] = [];

beforeAll(async () => {
  pdns = await startPowerDns();
  pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
  // What NODE_EXTRA_CA_CERTS does for a Node program started with it: trust Pebble's TLS certificate.
  setDefaultCACertificates([...getCACertificates('default'), pebble.tlsCertificate]);
  Object.assign(process.env, {
    CERTIFICATE_AUTHORITY: 'acme',
    DNS_PROVIDER: 'powerdns',
    POWERDNS_API_URL: pdns.apiUrl,
    POWERDNS_API_KEY: pdns.apiKey,
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_EAB_KID: pebble.eab.kid,
    ACME_EAB_HMAC_KEY: pebble.eab.hmacKey,
    ACME_TIMEOUT_SECONDS: '2',
    ACME_RETRY_SECONDS: '1',
    // The names the customer publishes elsewhere are looked up at the test's PowerDNS, every second.
    ACME_DNS_RESOLVER: `${pdns.dnsAddress}:${pdns.dnsPort}`,
    ACME_DNS_RECHECK_SECONDS: '1',
  });
  api = await import('./support/api.ts');
  certs = await import('./support/certificates.ts');
  db = await import('../shared/db/client.ts');
  accounts = await import('../shared/db/repositories/acme-accounts.ts');
  acmeAuthority = await import('../shared/certificates/acme-authority.ts');
  dcvCheck = (await import('../functions/dcv-check/handler.ts')).handler;
  const acme = await import('acme-client');
  acme.axios.interceptors.request.use((config) => {
    caCalls.push(`${config.method?.toUpperCase()} ${new URL(config.url as string).pathname}`);
    return config;
  });
  acme.axios.interceptors.response.use((res) => {
    const type = (res.data as { type?: unknown } | undefined)?.type;
    const problem = typeof type === 'string' && type.startsWith('urn:ietf:params:acme:error:') ? ` ${type.slice(27)}` : '';
    caAnswers.push(
      `${res.status} ${res.config.method?.toUpperCase()} ${new URL(res.config.url as string).host}${new URL(res.config.url as string).pathname}${problem}`,
    );
    return res;
  });
  // The demo zones are served by PowerDNS, as the zone sync serves them.
  const { dnsProvider } = await import('../shared/dns/select.ts');
  const { syncZone } = await import('../shared/dns/sync.ts');
  for (const zone of ['demo-shop.nl', 'demo-secure.com']) await syncZone(dnsProvider() as never, zone);
}, 120_000);

afterAll(async () => {
  pebble?.resume();
  await pebble?.stop();
  await pdns?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the DCV job until the process leaves RUNNING (or the time is up); answers the process info and the passes it took. */
async function runUntilDone(processId: string, seconds = 40) {
  const deadline = Date.now() + seconds * 1000;
  let passes = 0;
  for (;;) {
    await dcvCheck(scheduled, jobContext);
    passes++;
    const process = await api.call('GET', `/v2/processes/${processId}`);
    if (process.body.status !== 'RUNNING' || Date.now() > deadline) {
      const info = await api.call('GET', `/v2/processes/${processId}/info`);
      return { process: process.body, info: info.body, passes };
    }
    await sleep(500);
  }
}

/** The details the process keeps (read through the repository: the order is not on the wire). */
async function detailsOf(processId: string) {
  const { getProcessById } = await import('../shared/db/repositories/processes.ts');
  return (await getProcessById(Number(processId)))?.details as Record<string, any>;
}

const names = ['www.demo-shop.nl', 'demo-shop.nl'];

async function renewal(csr: string) {
  const certificate = await certs.testCertificate();
  const res = await certs.renew(certificate.id, { period: 12, csr });
  expect(res.status, res.raw).toBe(202);
  return { certificate, processId: res.headers['x-process-id'] as string };
}

/**
 * A renewal of a certificate for a name of its own under demo-shop.nl (without the free www name):
 * Pebble reuses valid authorizations of earlier orders, so a test that needs a validation to
 * happen uses a name no earlier order validated.
 */
async function freshRenewal(label: string) {
  const name = `${label}-${Math.random().toString(36).slice(2, 8)}.demo-shop.nl`;
  const certificate = await certs.testCertificate({ commonName: name, san: [name] });
  const csr = makeCsr({ cn: name, san: [name], key: 'p256' });
  const res = await certs.renew(certificate.id, { period: 12, csr, san: [] });
  expect(res.status, res.raw).toBe(202);
  return { name, csr, processId: res.headers['x-process-id'] as string };
}

/** An acme-client of the service's account at the test's Pebble, with the stored key: the test acting at the CA behind the job's back. */
async function storedAccountClient() {
  const acme = await import('acme-client');
  const { createHash } = await import('node:crypto');
  const account = await accounts.getAcmeAccount(createHash('sha256').update(pebble.directoryUrl).digest('hex').slice(0, 32));
  return new acme.Client({
    directoryUrl: pebble.directoryUrl,
    accountKey: account?.accountKey as string,
    accountUrl: account?.accountUrl as string,
  });
}

describe('renewal issued by a real ACME CA (Pebble)', () => {
  it("leaves the demo data's sandbox requests (501, 601) alone: never shown to the ACME CA, nothing recorded on them", async () => {
    const before = { 501: await detailsOf('501'), 601: await detailsOf('601') };
    expect(before[501]?.openedBy).toBe('sandbox');
    const report = (await dcvCheck(scheduled, jobContext)) as { otherAuthority: number; failed: number };
    expect(report.otherAuthority).toBe(2);
    expect(report.failed).toBe(0);
    expect(await detailsOf('501')).toEqual(before[501]);
    expect(await detailsOf('601')).toEqual(before[601]);
    // A request this stage opens is its own, and the DCV job takes it on.
    const { processId } = await freshRenewal('opened-by');
    expect((await detailsOf(processId))?.openedBy).toBe('acme');
  });

  it('renews end to end: the downloaded certificate has the CSR key, the request SANs and a chain to Pebble root', async () => {
    const csr = makeCsr({ cn: names[0], san: names, key: 'p256' });
    const before = caCalls.length;
    const { processId } = await renewal(csr);
    const { process, info, passes } = await runUntilDone(processId);
    console.log(`acme: issued in ${passes} DCV passes, ${caCalls.length - before} calls to the CA`);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    const id = info.issuedCertificateId as number;
    expect(id).toBeGreaterThan(0);

    const got = await api.call('GET', `/v2/ssl/certificates/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, process: Number(processId), domainName: names[0], san: names, csr: csr.trim() });
    const crt = (await api.call('GET', `/v2/ssl/certificates/${id}/download?format=CRT`)).raw;
    const bundle = (await api.call('GET', `/v2/ssl/certificates/${id}/download?format=CA_BUNDLE`)).raw;
    // Its key is the CSR's.
    const leaf = new x509.X509Certificate(crt);
    const request = new x509.Pkcs10CertificateRequest(csr);
    expect(Buffer.from(leaf.publicKey.rawData).equals(Buffer.from(request.publicKey.rawData))).toBe(true);
    // Its SANs are the request's.
    const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
    expect(san?.names.items.map((n) => n.value).sort()).toEqual([...names].sort());
    // Its chain verifies up to Pebble's root, as the management interface gives it.
    const root = new X509Certificate(await pebble.root());
    const intermediate = new X509Certificate(bundle);
    const node = new X509Certificate(crt);
    expect(node.checkIssued(intermediate)).toBe(true);
    expect(node.verify(intermediate.publicKey)).toBe(true);
    expect(intermediate.verify(root.publicKey)).toBe(true);
    expect(got.body.fingerprint).toBe(node.fingerprint256.replaceAll(':', ''));
    // The challenge records are gone from DNS.
    const served = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/demo-shop.nl.`, { headers: { 'X-API-Key': pdns.apiKey } });
    const zone = (await served.json()) as { rrsets: { name: string; type: string }[] };
    expect(zone.rrsets.filter((r) => r.name.startsWith('_acme-challenge.'))).toEqual([]);
  }, 90_000);
});

/**
 * Runs `fn` with the table write that records an order step for which `match` holds failing once,
 * at the SDK client (the function crashing between the CA's answer and recording it); `before`
 * runs just before that write instead, when given, and the write goes through.
 */
async function atStepWrite<T>(
  processId: string,
  match: (order: Record<string, any>) => boolean,
  fn: () => Promise<T>,
  effect: { fail?: true; before?: (order: Record<string, any>) => Promise<void> },
): Promise<{ result: T; hit: number }> {
  const name = `acme-fault-${Math.random()}`;
  let hit = 0;
  db.db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { pk?: string }; UpdateExpression?: string; ExpressionAttributeValues?: Record<string, any> };
      const order = input.ExpressionAttributeValues?.[':order'];
      const own = input.Key?.pk === `PROCESS#${processId}`;
      if (hit === 0 && own && input.UpdateExpression?.includes('details.#order') && order && match(order)) {
        hit++;
        if (effect.before) await effect.before(order);
        if (effect.fail)
          throw Object.assign(new Error('injected: the function died before recording the step'), { name: 'InternalServerError' });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), hit };
  } finally {
    db.db().middlewareStack.remove(name);
  }
}

/** The TXT records served for a name by PowerDNS, through its API. */
async function servedTxt(zone: string, name: string): Promise<string[]> {
  const res = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${zone}.`, { headers: { 'X-API-Key': pdns.apiKey } });
  const body = (await res.json()) as { rrsets: { name: string; type: string; records: { content: string }[] }[] };
  return body.rrsets.filter((r) => r.name === `${name}.` && r.type === 'TXT').flatMap((r) => r.records.map((x) => x.content));
}

/** The orders a Pebble created since `from` (answers to newOrder: 201 Created, never a rejected attempt). */
async function ordersCreated(of: LocalPebble, from: number): Promise<number> {
  const directory = (await (await fetch(of.directoryUrl)).json()) as { newOrder: string };
  const url = new URL(directory.newOrder);
  return caAnswers.slice(from).filter((a) => a === `201 POST ${url.host}${url.pathname}`).length;
}

/** Whether the certificate issued by a process certifies the CSR's key. */
async function certifiesKeyOf(issuedId: number, csr: string): Promise<boolean> {
  const crt = (await api.call('GET', `/v2/ssl/certificates/${issuedId}/download?format=CRT`)).raw;
  const leaf = new x509.X509Certificate(crt);
  return Buffer.from(leaf.publicKey.rawData).equals(Buffer.from(new x509.Pkcs10CertificateRequest(csr).publicKey.rawData));
}

/**
 * Runs `fn` with a second DCV run started right after the write that records a claim of the step
 * `order` went through (at the SDK client: the first run then goes on to create the order).
 */
async function afterClaimWrite<T>(
  processId: string,
  second: () => Promise<void>,
  fn: () => Promise<T>,
): Promise<{ result: T; hit: number }> {
  const name = `acme-claim-${Math.random()}`;
  let hit = 0;
  db.db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { pk?: string }; UpdateExpression?: string; ExpressionAttributeValues?: Record<string, any> };
      const order = input.ExpressionAttributeValues?.[':order'];
      const claim = order?.step === 'order' && order.orderingSince !== undefined && order.url === undefined;
      const result = await next(args);
      if (hit === 0 && input.Key?.pk === `PROCESS#${processId}` && input.UpdateExpression?.includes('details.#order') && claim) {
        hit++;
        await second();
      }
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), hit };
  } finally {
    db.db().middlewareStack.remove(name);
  }
}

describe('ACME failures', () => {
  it('a second renewal reuses the stored account: no second registration, one account item', async () => {
    const { createHash } = await import('node:crypto');
    const id = createHash('sha256').update(pebble.directoryUrl).digest('hex').slice(0, 32);
    const before = await accounts.getAcmeAccount(id);
    expect(before?.accountUrl).toMatch(/^https:\/\/127\.0\.0\.1:/);
    // A cold start: the clients are gone, the account is read back from the table.
    acmeAuthority.forgetAcmeClients();
    const directory = (await (await fetch(pebble.directoryUrl)).json()) as { newAccount: string };
    const from = caCalls.length;
    const { processId } = await renewal(makeCsr({ cn: names[0], san: names, key: 'rsa2048' }));
    const { process } = await runUntilDone(processId);
    expect(process.status).toBe('COMPLETED');
    expect(caCalls.slice(from).filter((c) => c === `POST ${new URL(directory.newAccount).pathname}`)).toEqual([]);
    expect(await accounts.getAcmeAccount(id)).toEqual(before);
  }, 60_000);

  it('a second run while the first holds the claim of the order neither looks for the order nor creates one: one order', async () => {
    const csr = makeCsr({ cn: names[0], san: names, key: 'p256' });
    const from = caAnswers.length;
    const { processId } = await renewal(csr);
    let second: unknown;
    const { hit } = await afterClaimWrite(
      processId,
      async () => {
        second = await dcvCheck(scheduled, jobContext);
      },
      () => dcvCheck(scheduled, jobContext),
    );
    expect(hit).toBe(1);
    // The second run found the claim, young, of another run: it recorded nothing.
    expect(second).toMatchObject({ updated: 0, issued: [] });
    const { process, info } = await runUntilDone(processId);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    expect(await ordersCreated(pebble, from)).toBe(1);
    expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
  }, 60_000);

  it('a crash between creating the order and recording it resumes with the same order: one order, one certificate', async () => {
    // The account holds earlier valid orders for the same names by now, more than one page of
    // Pebble's order list (3 a page): the resumed order is found on a later page, never an old one.
    const csr = makeCsr({ cn: names[0], san: names, key: 'p256' });
    const from = caAnswers.length;
    const { processId } = await renewal(csr);
    const { hit } = await atStepWrite(
      processId,
      (order) => order.url !== undefined && order.step === 'present',
      () => dcvCheck(scheduled, jobContext),
      { fail: true },
    );
    expect(hit).toBe(1);
    const state = await detailsOf(processId);
    expect(state.order).toMatchObject({ step: 'order', orderingSince: expect.any(String) });
    expect(state.order.url).toBeUndefined();
    const { process, info } = await runUntilDone(processId);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    // One order was created (acme-client may have sent newOrder again after a badNonce: Pebble
    // rejects those before creating anything), the one the next pass found and finished, for this CSR.
    expect(await ordersCreated(pebble, from)).toBe(1);
    expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
  }, 60_000);

  it('Pebble stopped mid-order shows on the process and keeps the order; back, the order goes on to the certificate', async () => {
    const { processId } = await renewal(makeCsr({ cn: names[0], san: names, key: 'p256' }));
    // The order is placed and its records published; then the CA stops answering. A step that
    // failed before that (one transient answer of the CA) waits out its back-off: passes are run
    // until the pause happened, never assumed after the first.
    let paused = 0;
    try {
      for (let pass = 0; paused === 0 && pass < 20; pass++) {
        if (pass > 0) await sleep(500);
        ({ hit: paused } = await atStepWrite(
          processId,
          (order) => order.step === 'validate',
          () => dcvCheck(scheduled, jobContext),
          { before: async () => pebble.pause() },
        ));
      }
      expect(paused, JSON.stringify((await detailsOf(processId)).order)).toBe(1);
      await dcvCheck(scheduled, jobContext);
      const info = (await api.call('GET', `/v2/processes/${processId}/info`)).body;
      const state = await detailsOf(processId);
      expect(state.order).toMatchObject({
        step: expect.stringMatching(/^validat/),
        failures: expect.any(Number),
        problem: expect.stringContaining('No answer'),
      });
      expect(state.order.url).toMatch(/^https:/);
      expect(info.notes.at(-1)).toMatchObject({ type: 'INCOMING', message: expect.stringContaining('could not take the step') });
      expect(info.nextAction.steps).toContainEqual(expect.objectContaining({ kind: 'WAIT_FOR_AUTHORITY' }));
      expect((await api.call('GET', `/v2/processes/${processId}`)).body.status).toBe('RUNNING');
    } finally {
      pebble.resume();
    }
    await sleep(1100);
    const { process } = await runUntilDone(processId);
    expect(process.status).toBe('COMPLETED');
  }, 90_000);

  it('a wrong TXT value: the validation is refused, the process needs attention with the CA problem, and a new order issues', async () => {
    const { name, processId } = await freshRenewal('wrong-txt');
    const wrong = '"not-the-key-authorization-digest-000000000000"';
    // Right after the records are published, someone changes the TXT of www behind the service's back.
    const tamper = async () => {
      await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/demo-shop.nl.`, {
        method: 'PATCH',
        headers: { 'X-API-Key': pdns.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          rrsets: [
            {
              name: `_acme-challenge.${name}.`,
              type: 'TXT',
              ttl: 60,
              changetype: 'REPLACE',
              records: [{ content: wrong, disabled: false }],
            },
          ],
        }),
      });
    };
    await atStepWrite(
      processId,
      (order) => order.step === 'served',
      () => dcvCheck(scheduled, jobContext),
      { before: tamper },
    );
    // The validation fails within a pass or two (Pebble validates at once without its sleep).
    let info: Record<string, any> = {};
    for (let i = 0; i < 10; i++) {
      info = (await api.call('GET', `/v2/processes/${processId}/info`)).body;
      if (info.requiresAttention) break;
      await sleep(300);
      await dcvCheck(scheduled, jobContext);
    }
    expect(info.requiresAttention, JSON.stringify(info)).toBe(true);
    expect(info.validations.dcv.find((e: { commonName: string }) => e.commonName === name)).toMatchObject({
      status: 'ATTENTION',
    });
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain(`refused the validation of ${name}`);
    expect(info.nextAction.steps).toContainEqual(expect.objectContaining({ kind: 'FIX_DNS_RECORD' }));
    // The customer is told, with the step that recorded the failure.
    const told = await api.call('GET', `/v2/customers/demo/notifications?process=${processId}&eventType=AcmeOrderFailedEvent`);
    expect(told.body.entities).toHaveLength(1);
    expect(told.body.entities[0]).toMatchObject({
      notificationType: 'SSLCertificateNotification',
      subjectStatus: 'PENDING',
      statusDetail: 'SSL_REQUIRES_ATTENTION',
      reason: expect.any(String),
    });
    // Its reason is the CA's problem, as the process's note gives it.
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain(told.body.entities[0].reason);
    await sleep(1100);
    const { process } = await runUntilDone(processId);
    expect(process.status).toBe('COMPLETED');
  }, 90_000);

  it('cancelling mid-order answers at once; the next DCV run deactivates the authorizations and removes the challenge records', async () => {
    const { name, processId } = await freshRenewal('cancel');
    const state = await publishedOrder(processId);
    expect(state.order.step).toBe('served');
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toHaveLength(1);
    // The request calls no CA (cancel carries no ACME client): the order is withdrawn by the DCV job.
    const res = await api.call('DELETE', `/v2/processes/${processId}`);
    expect(res.status, res.raw).toBe(200);
    expect(res.body.status).toBe('CANCELLED');
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toHaveLength(1);
    expect(await dcvCheck(scheduled, jobContext)).toMatchObject({ withdrawn: 1, failed: 0 });
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toEqual([]);
    const acme = await import('acme-client');
    const { createHash } = await import('node:crypto');
    const account = await accounts.getAcmeAccount(createHash('sha256').update(pebble.directoryUrl).digest('hex').slice(0, 32));
    const client = new acme.Client({
      directoryUrl: pebble.directoryUrl,
      accountKey: account?.accountKey as string,
      accountUrl: account?.accountUrl as string,
    });
    const authz = await client.getAuthorizations({
      authorizations: state.order.challenges.map((c: { authorization: string }) => c.authorization),
    } as never);
    expect(authz.map((a) => a.status)).toEqual(authz.map(() => 'deactivated'));
    // The job no longer looks at it.
    expect(await dcvCheck(scheduled, jobContext)).toMatchObject({ withdrawn: 0 });
    expect((await api.call('GET', `/v2/processes/${processId}`)).body.status).toBe('CANCELLED');
  }, 60_000);
});

describe('a name outside the caller managed zones', () => {
  it('nextAction names the TXT record to publish; the DCV job asks the CA to validate only once DNS answers it, then issues', async () => {
    // A zone the customer's DNS host serves (PowerDNS here, which Pebble resolves through), not managed with us.
    const zone = `elsewhere-${Math.random().toString(36).slice(2, 8)}.test`;
    const created = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones`, {
      method: 'POST',
      headers: { 'X-API-Key': pdns.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] }),
    });
    expect(created.status).toBe(201);
    const name = `www.${zone}`;
    const csr = makeCsr({ cn: name, san: [name], key: 'p256' });
    const certificate = await certs.testCertificate({ commonName: name, san: [name] });
    const res = await certs.renew(certificate.id, { period: 12, csr, san: [] });
    expect(res.status, res.raw).toBe(202);
    const processId = res.headers['x-process-id'] as string;
    const record = `_acme-challenge.${name}`;

    // Before the order exists, the step says which record, its contents to come.
    let info = (await api.call('GET', `/v2/processes/${processId}/info`)).body;
    expect(info.nextAction.steps).toContainEqual(expect.objectContaining({ kind: 'CREATE_DNS_RECORD', commonName: name }));

    // The order is placed; nothing is published for the customer, and the CA is not asked while DNS does not answer.
    const calls = caCalls.length;
    await dcvCheck(scheduled, jobContext);
    await sleep(1100);
    await dcvCheck(scheduled, jobContext);
    const state = await detailsOf(processId);
    expect(state.order).toMatchObject({ step: 'served', url: expect.stringMatching(/^https:/) });
    const challenge = state.order.challenges.find((c: { name: string }) => c.name === name);
    expect(challenge).toMatchObject({ record, status: 'pending' });
    expect(challenge.zone).toBeUndefined();
    expect(caCalls.slice(calls)).not.toContain(`POST ${new URL(challenge.challenge).pathname}`);
    info = (await api.call('GET', `/v2/processes/${processId}/info`)).body;
    const step = info.nextAction.steps.find((s: { kind: string }) => s.kind === 'CREATE_DNS_RECORD');
    expect(step).toMatchObject({ commonName: name });
    expect(step.message).toContain(record);
    expect(step.message).toContain(challenge.value);
    expect(info.validations.dcv.find((e: { commonName: string }) => e.commonName === name)).toMatchObject({
      dnsRecord: record,
      dnsType: 'TXT',
      dnsContents: challenge.value,
      status: 'WAITING',
    });

    // The customer publishes it at their DNS host; the next checks find it, validate, and issue.
    const published = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${zone}.`, {
      method: 'PATCH',
      headers: { 'X-API-Key': pdns.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        rrsets: [
          {
            name: `${record}.`,
            type: 'TXT',
            ttl: 60,
            changetype: 'REPLACE',
            records: [{ content: `"${challenge.value}"`, disabled: false }],
          },
        ],
      }),
    });
    expect(published.status).toBe(204);
    await sleep(1100);
    const done = await runUntilDone(processId);
    expect(done.process.status, JSON.stringify(done.info)).toBe('COMPLETED');
    expect(caCalls.slice(calls)).toContain(`POST ${new URL(challenge.challenge).pathname}`);
    const issued = (await api.call('GET', `/v2/ssl/certificates/${done.info.issuedCertificateId}`)).body;
    expect(issued).toMatchObject({ domainName: name, san: [name] });
    expect(await certifiesKeyOf(done.info.issuedCertificateId, csr)).toBe(true);
  }, 90_000);
});

/**
 * Runs the DCV job a pass at a time (at most 20, 500 ms apart) until `done` says so: the process's
 * details after the last pass, and when that pass ran.
 */
async function passesUntil(
  processId: string,
  done: (state: Record<string, any>) => boolean,
): Promise<{ state: Record<string, any>; window: { from: number; to: number } }> {
  let state: Record<string, any> = {};
  let window = { from: 0, to: 0 };
  for (let pass = 0; pass < 20; pass++) {
    if (pass > 0) await sleep(500);
    window = { from: Date.now(), to: 0 };
    await dcvCheck(scheduled, jobContext);
    window.to = Date.now();
    state = await detailsOf(processId);
    if (done(state)) break;
  }
  return { state, window };
}

/** Once `notBefore` has passed, the job runs until the process is done: completed, with a certificate for the CSR's key. */
async function issuesAfter(notBefore: number, processId: string, csr: string): Promise<void> {
  await sleep(Math.max(0, notBefore - Date.now()) + 100);
  const { process, info } = await runUntilDone(processId);
  expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
  expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
}

describe('the CA answers an order as processing, with Retry-After', () => {
  it('the next read of the order waits the Retry-After (seconds, or an HTTP-date), not the fixed poll', async () => {
    const { name, csr, processId } = await freshRenewal('retry-after');
    const acme = await import('acme-client');
    // Pebble 2.4 sends no Retry-After (Pebble 2.5 added it): the test adds it at the HTTP layer,
    // acme-client's axios instance. Pebble answers the finalization with the order `processing`:
    // that answer gets `Retry-After: 7`. Pebble issues within milliseconds, so the order's next read
    // is shown as still processing (a slower CA), with an HTTP-date 6 s ahead; the read after that is Pebble's own.
    const injected: string[] = [];
    const interceptor = acme.axios.interceptors.response.use((res) => {
      const order = res.data as { status?: string; finalize?: string; identifiers?: { value: string }[]; certificate?: string };
      if (typeof order?.finalize !== 'string' || !order.identifiers?.some((i) => i.value === name)) return res;
      if (res.config.url === order.finalize && order.status === 'processing') {
        res.headers['retry-after'] = '7';
        injected.push('finalize 7');
      } else if (res.config.url !== order.finalize && order.status === 'valid' && !injected.includes('order date')) {
        res.data = { ...order, status: 'processing', certificate: undefined };
        res.headers['retry-after'] = new Date(Date.now() + 6000).toUTCString();
        injected.push('order date');
      }
      return res;
    });
    try {
      // Passes until the order is finalized (one pass, unless a step had to wait).
      let { state, window } = await passesUntil(processId, (details) => details.order?.step === 'download');
      expect(injected).toEqual(['finalize 7']);
      expect(state.order.step).toBe('download');
      // The run's time plus 7 s, in whole seconds (the fixed poll was 2 s; before, none at all).
      const notBefore = Date.parse(state.order.notBefore);
      expect(notBefore).toBeGreaterThanOrEqual(window.from + 6000);
      expect(notBefore).toBeLessThanOrEqual(window.to + 7000);
      // Meanwhile the order is not read.
      const orderPath = `POST ${new URL(state.order.url).pathname}`;
      const calls = caCalls.length;
      await dcvCheck(scheduled, jobContext);
      expect(caCalls.slice(calls)).not.toContain(orderPath);
      expect((await detailsOf(processId)).order).toEqual(state.order);

      // Then it is read: still processing, with an HTTP-date 6 s ahead: the next read waits that long.
      await sleep(Math.max(0, notBefore - Date.now()) + 100);
      window = { from: Date.now(), to: 0 };
      await dcvCheck(scheduled, jobContext);
      window.to = Date.now();
      expect(injected).toEqual(['finalize 7', 'order date']);
      state = await detailsOf(processId);
      expect(state.order.step).toBe('download');
      const next = Date.parse(state.order.notBefore);
      expect(next).toBeGreaterThanOrEqual(window.from + 4000);
      expect(next).toBeLessThanOrEqual(window.to + 6000);
      expect((await api.call('GET', `/v2/processes/${processId}`)).body.status).toBe('RUNNING');

      await issuesAfter(next, processId, csr);
    } finally {
      acme.axios.interceptors.response.eject(interceptor);
    }
  }, 60_000);
});

describe('the CA answers an authorization as pending, with Retry-After', () => {
  it('the next read of the authorizations waits the longest Retry-After they sent, not the fixed poll', async () => {
    const { name, csr, processId } = await freshRenewal('authz-retry-after');
    const acme = await import('acme-client');
    // Pebble 2.4 sends no Retry-After, and validates at once: the first read of the authorization
    // once it is valid is shown as still pending (a slower CA), with `Retry-After: 5`.
    const injected: string[] = [];
    const interceptor = acme.axios.interceptors.response.use((res) => {
      const authz = res.data as { status?: string; identifier?: { value: string }; challenges?: { status: string }[] };
      if (!Array.isArray(authz?.challenges) || authz.identifier?.value !== name) return res;
      if (authz.status === 'valid' && injected.length === 0) {
        res.data = { ...authz, status: 'pending', challenges: authz.challenges.map((c) => ({ ...c, status: 'processing' })) };
        res.headers['retry-after'] = '5';
        injected.push(String(res.config.url));
      }
      return res;
    });
    try {
      const { state, window } = await passesUntil(processId, () => injected.length > 0);
      expect(injected).toHaveLength(1);
      expect(state.order.step).toBe('validating');
      // The run's time plus 5 s (the fixed poll is 2 s).
      const notBefore = Date.parse(state.order.notBefore);
      expect(notBefore).toBeGreaterThanOrEqual(window.from + 4000);
      expect(notBefore).toBeLessThanOrEqual(window.to + 5000);
      // Meanwhile the authorization is not read.
      const authzPath = `POST ${new URL(injected[0] as string).pathname}`;
      const calls = caCalls.length;
      await dcvCheck(scheduled, jobContext);
      expect(caCalls.slice(calls)).not.toContain(authzPath);

      await issuesAfter(notBefore, processId, csr);
    } finally {
      acme.axios.interceptors.response.eject(interceptor);
    }
  }, 60_000);
});

describe('Retry-After of a poll', () => {
  it('reads delta-seconds and an HTTP-date, bounded to 1 s .. 15 min; anything else is no Retry-After', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    const wait = (header: unknown) => acmeAuthority.pollWaitSeconds(header, now);
    expect(wait('7')).toBe(7);
    expect(wait(' 120 ')).toBe(120);
    expect(wait('Thu, 26 Nov 2026 00:00:30 GMT')).toBe(30);
    expect(wait(['5'])).toBe(5);
    // Bounded: a tenth of a second waits 1 s; a day waits 15 min.
    expect(wait('Thu, 26 Nov 2026 00:00:00 GMT')).toBeUndefined();
    expect(acmeAuthority.pollWaitSeconds('Thu, 26 Nov 2026 00:00:01 GMT', now + 900)).toBe(1);
    expect(wait('86400')).toBe(900);
    expect(wait('Fri, 27 Nov 2026 00:00:00 GMT')).toBe(900);
    // In the past, zero, negative, unreadable, absent: none.
    for (const header of ['0', '-5', 'Wed, 25 Nov 2026 23:59:00 GMT', 'soon', '1.5', '', undefined, 7])
      expect(wait(header), String(header)).toBeUndefined();
  });
});

/** The order placed and its record published: the job's pass stops before asking for validation. */
async function publishedOrder(processId: string): Promise<Record<string, any>> {
  await atStepWrite(
    processId,
    (order) => order.step === 'validate',
    () => dcvCheck(scheduled, jobContext),
    { fail: true },
  );
  return detailsOf(processId);
}

/**
 * Someone holding the account key deactivates the order's first authorization (RFC 8555 7.5.2):
 * the order is dead at Pebble. Answers that account's client.
 */
async function deactivateAuthorization(state: Record<string, any>) {
  const client = await storedAccountClient();
  const [authz] = await client.getAuthorizations({ authorizations: [state.order.challenges[0].authorization] } as never);
  await client.deactivateAuthorization(authz as never);
  return client;
}

/** Writes one field of the process's recorded order, as if the order's history had been otherwise. */
async function recordOnOrder(processId: string, field: string, value: unknown): Promise<void> {
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { keys } = await import('../shared/db/keys.ts');
  const { tableName } = await import('../shared/db/table.ts');
  await db.db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.processById(Number(processId)),
      UpdateExpression: 'SET details.#order.#field = :value',
      ExpressionAttributeNames: { '#order': 'order', '#field': field },
      ExpressionAttributeValues: { ':value': value },
    }),
  );
}

describe('orders the CA killed or finalized elsewhere', () => {
  it('an authorization deactivated at the CA behind the job: the order is replaced once, and the certificate is issued', async () => {
    const { name, csr, processId } = await freshRenewal('deactivated');
    const state = await publishedOrder(processId);
    expect(state.order.step).toBe('served');
    const client = await deactivateAuthorization(state);
    const dead = await client.getOrder({ url: state.order.url } as never);
    // RFC 8555 says `invalid`; Pebble 2.4 answers `deactivated`.
    expect(['invalid', 'deactivated']).toContain(dead.status);

    const from = caAnswers.length;
    const { process, info } = await runUntilDone(processId);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    expect(await ordersCreated(pebble, from)).toBe(1);
    const after = await detailsOf(processId);
    expect(after.order.replaced).toBe(1);
    expect(after.order.url).not.toBe(state.order.url);
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain(
      `The authorization of ${name} is deactivated at the certificate authority: a new order is placed.`,
    );
    // Nothing failed that the customer must act on: no order-failed notification.
    const told = await api.call('GET', `/v2/customers/demo/notifications?process=${processId}&eventType=AcmeOrderFailedEvent`);
    expect(told.body.entities).toEqual([]);
    expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toEqual([]);
  }, 60_000);

  it('an order killed again and again: from the third replacement, the next order waits a back-off', async () => {
    const { name, csr, processId } = await freshRenewal('killed-again');
    const state = await publishedOrder(processId);
    expect(state.order.step).toBe('served');
    // As if four orders had died before this one (each replaced): the record says so.
    await recordOnOrder(processId, 'replaced', 4);
    await deactivateAuthorization(state);

    // The fifth replacement waits the third back-off step: 4 s with ACME_RETRY_SECONDS=1.
    const from = caAnswers.length;
    const started = Date.now();
    const { state: waiting } = await passesUntil(processId, (details) => details.order?.replaced === 5);
    expect(waiting.order).toMatchObject({ step: 'order', replaced: 5, challenges: [] });
    const notBefore = Date.parse(waiting.order.notBefore);
    expect(notBefore).toBeGreaterThanOrEqual(started + 3000);
    expect(notBefore).toBeLessThanOrEqual(Date.now() + 4000);
    // Meanwhile no order is placed.
    await dcvCheck(scheduled, jobContext);
    expect(await ordersCreated(pebble, from)).toBe(0);
    expect((await detailsOf(processId)).order.replaced).toBe(5);

    await issuesAfter(notBefore, processId, csr);
    expect(await ordersCreated(pebble, from)).toBe(1);
    const { info } = await runUntilDone(processId);
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain(
      `The authorization of ${name} is deactivated at the certificate authority: a new order is placed in 4 s (order 5 replaced).`,
    );
  }, 60_000);

  it('an order past its expiry before it was finalized is replaced once, without asking the CA about it', async () => {
    const { name, csr, processId } = await freshRenewal('expired');
    const state = await publishedOrder(processId);
    expect(state.order).toMatchObject({ step: 'served', expires: expect.any(String) });
    expect(Date.parse(state.order.expires)).toBeGreaterThan(Date.now());
    // Pebble's orders live a day: the recorded expiry is moved into the past, as if the order had
    // waited that long (for a record outside the managed zones, say). Pebble's order itself lives on.
    const expired = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await recordOnOrder(processId, 'expires', expired);
    const from = caAnswers.length;
    const calls = caCalls.length;
    const { process, info } = await runUntilDone(processId);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    expect(await ordersCreated(pebble, from)).toBe(1);
    // Neither the expired order nor its authorization or challenge was asked anything.
    for (const url of [state.order.url, state.order.challenges[0].authorization, state.order.challenges[0].challenge])
      expect(caCalls.slice(calls)).not.toContain(`POST ${new URL(url).pathname}`);
    const after = await detailsOf(processId);
    expect(after.order).toMatchObject({ replaced: 1 });
    expect(after.order.url).not.toBe(state.order.url);
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain(
      `The order expired at the certificate authority (${expired}): a new order is placed.`,
    );
    expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toEqual([]);
  }, 60_000);

  it('an order finalized behind the job with another key: that certificate is never stored; a new order issues one for the CSR key', async () => {
    const { name, csr, processId } = await freshRenewal('other-key');
    // Another key (makeCsr keeps one key per kind: the request's is its P-256 key).
    const otherCsr = makeCsr({ cn: name, san: [name], key: 'p384' });
    const client = await storedAccountClient();
    let rogue: { url: string; status: string } | undefined;
    const from = caAnswers.length;
    // Once the authorizations are valid (the order `ready`), just before the job records the step
    // `finalize`, the order is finalized at Pebble with a CSR of the same names and another key.
    const { hit } = await atStepWrite(
      processId,
      (order) => order.step === 'finalize',
      async () => {
        for (let pass = 0; pass < 20 && rogue === undefined; pass++) {
          if (pass > 0) await sleep(500);
          await dcvCheck(scheduled, jobContext);
        }
      },
      {
        before: async (order) => {
          const ready = await client.getOrder({ url: order.url } as never);
          rogue = { url: order.url, status: ready.status };
          await client.finalizeOrder({ ...ready, url: order.url }, otherCsr);
        },
      },
    );
    expect(hit).toBe(1);
    expect(rogue?.status).toBe('ready');

    const { process, info } = await runUntilDone(processId);
    expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
    // The first order and the one that replaced it.
    expect(await ordersCreated(pebble, from)).toBe(2);
    expect(info.notes.map((n: { message: string }) => n.message).join('\n')).toContain("finalized with another request's CSR");
    const issued = (await api.call('GET', `/v2/ssl/certificates/${info.issuedCertificateId}`)).body;
    expect(issued).toMatchObject({ domainName: name, san: [name], process: Number(processId) });
    expect(await certifiesKeyOf(info.issuedCertificateId, csr)).toBe(true);
    // The other key's certificate, as Pebble delivers it, is nowhere in the table.
    const finalized = await client.getOrder({ url: rogue?.url } as never);
    expect(finalized.status).toBe('valid');
    const otherPem = (await client.getCertificate(finalized)).split('-----END CERTIFICATE-----')[0] as string;
    const otherSerial = new X509Certificate(`${otherPem}-----END CERTIFICATE-----\n`).serialNumber.toUpperCase();
    expect(issued.serialNumber).not.toBe(otherSerial);
    // A line of its PEM (64 characters of its signed body, the same wherever the PEM is kept).
    const line = otherPem.split('\n').filter((l) => l.length === 64)[2] as string;
    expect(line).toHaveLength(64);
    const { snapshotTable } = await import('./support/table-writes.ts');
    const stored = [...(await snapshotTable()).values()];
    expect(stored.filter((item) => item.includes(line))).toEqual([]);
    expect(stored.filter((item) => item.includes(`"${otherSerial}"`))).toEqual([]);
    // The challenge records of both orders are gone.
    expect(await servedTxt('demo-shop.nl', `_acme-challenge.${name}`)).toEqual([]);
  }, 90_000);
});

describe('badNonce', () => {
  it('a CA rejecting half of the nonces: the rejections happen, and the certificate is issued all the same', async () => {
    // A Pebble of its own that rejects half of the good nonces (Pebble's default is 5 %), with an account of its own.
    const rejecting = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}`, nonceReject: 50 });
    const saved = { url: process.env.ACME_DIRECTORY_URL, kid: process.env.ACME_EAB_KID, key: process.env.ACME_EAB_HMAC_KEY };
    setDefaultCACertificates([...getCACertificates('default'), rejecting.tlsCertificate]);
    Object.assign(process.env, {
      ACME_DIRECTORY_URL: rejecting.directoryUrl,
      ACME_EAB_KID: rejecting.eab.kid,
      ACME_EAB_HMAC_KEY: rejecting.eab.hmacKey,
    });
    try {
      const from = caAnswers.length;
      const { name, processId } = await freshRenewal('bad-nonce');
      const { process, info } = await runUntilDone(processId, 60);
      expect(process.status, JSON.stringify(info)).toBe('COMPLETED');
      const host = new URL(rejecting.directoryUrl).host;
      const answers = caAnswers.slice(from).filter((a) => a.includes(` ${host}/`));
      const rejected = answers.filter((a) => a.endsWith(' badNonce'));
      console.log(`acme: ${rejected.length} badNonce of ${answers.length} answers in one issuance`);
      expect(rejected.length).toBeGreaterThan(0);
      expect(rejected.every((a) => a.startsWith('400 POST '))).toBe(true);
      expect(await ordersCreated(rejecting, from)).toBe(1);
      const issued = (await api.call('GET', `/v2/ssl/certificates/${info.issuedCertificateId}`)).body;
      expect(issued).toMatchObject({ domainName: name, san: [name] });
    } finally {
      Object.assign(process.env, { ACME_DIRECTORY_URL: saved.url, ACME_EAB_KID: saved.kid, ACME_EAB_HMAC_KEY: saved.key });
      setDefaultCACertificates([...getCACertificates('default'), pebble.tlsCertificate]);
      await rejecting.stop();
    }
  }, 120_000);
});

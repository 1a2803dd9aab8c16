import { X509Certificate } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import * as x509 from '@peculiar/x509';
import type { APIGatewayProxyResult, Context, ScheduledEvent } from 'aws-lambda';
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

/** The account's orders at Pebble (RFC 8555 7.1.2.1), through the stored account. */
async function accountOrders(): Promise<string[]> {
  const acme = await import('acme-client');
  const { createHash } = await import('node:crypto');
  const id = createHash('sha256').update(pebble.directoryUrl).digest('hex').slice(0, 32);
  const account = await accounts.getAcmeAccount(id);
  if (!account?.accountUrl) return [];
  const client = new acme.Client({ directoryUrl: pebble.directoryUrl, accountKey: account.accountKey, accountUrl: account.accountUrl });
  const { orders } = (await client.updateAccount({})) as unknown as { orders: string };
  const list = (await client.getOrder({ url: orders } as never)) as unknown as { orders?: string[] };
  return list.orders ?? [];
}

describe('renewal issued by a real ACME CA (Pebble)', () => {
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

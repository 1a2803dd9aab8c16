import { X509Certificate } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPebble, startPebble } from '../infra/local/pebble.ts';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import type { CertificateAuthorityPort, DcvChoice, Issued, OpeningRequest, RequestView, Step } from '../shared/certificates/authority.ts';
import type { CertificateAuthority } from '../shared/model/certificate.ts';
import type { DcvType, Validations } from '../shared/model/certificate-process.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { makeCsr } from './support/csr.ts';

/**
 * The certificate-authority port's contract (shared/certificates/authority.ts): the same cases
 * over every adapter, the sandbox authority and an ACME CA (Pebble, validating the dns-01 records
 * the adapter publishes through PowerDNS). What an adapter offers differs (the DCV methods, DCV
 * e-mails, a certificate file); what it does with what it offers, and how it refuses the rest, is
 * the contract.
 */

let pdns: LocalPowerDns;
let pebble: LocalPebble;
let authority: CertificateAuthority;
let managedZonesFor: typeof import('../shared/certificates/zones.ts').managedZonesFor;
let parseCsr: typeof import('../shared/certificates/csr.ts').parseCsr;
let csrPublicKey: typeof import('../shared/certificates/csr.ts').csrPublicKey;

/** An adapter under the contract, and what it offers. */
interface Adapter {
  name: string;
  make(): CertificateAuthorityPort;
  /** The DCV methods it validates by. */
  offers: DcvType[];
  /** Whether it delivers the certificate's file (PEM) with its issuance. */
  delivers: boolean;
}

const adapters: Adapter[] = [];

beforeAll(async () => {
  pdns = await startPowerDns();
  pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
  setDefaultCACertificates([...getCACertificates('default'), pebble.tlsCertificate]);
  Object.assign(process.env, {
    DNS_PROVIDER: 'powerdns',
    POWERDNS_API_URL: pdns.apiUrl,
    POWERDNS_API_KEY: pdns.apiKey,
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_EAB_KID: pebble.eab.kid,
    ACME_EAB_HMAC_KEY: pebble.eab.hmacKey,
    ACME_TIMEOUT_SECONDS: '2',
    ACME_RETRY_SECONDS: '1',
    ACME_DNS_RESOLVER: `${pdns.dnsAddress}:${pdns.dnsPort}`,
    ACME_DNS_RECHECK_SECONDS: '1',
  });
  const { getCertificateAuthority } = await import('../shared/db/repositories/certificates.ts');
  authority = (await getCertificateAuthority('sectigo')) as CertificateAuthority;
  ({ managedZonesFor } = await import('../shared/certificates/zones.ts'));
  ({ parseCsr, csrPublicKey } = await import('../shared/certificates/csr.ts'));
  const { SandboxAuthority } = await import('../shared/certificates/authority-sandbox.ts');
  const { AcmeAuthority } = await import('../shared/certificates/authority-acme.ts');
  adapters.push(
    { name: 'sandbox', make: () => new SandboxAuthority(authority), offers: ['DNS', 'EMAIL', 'FILE'], delivers: true },
    { name: 'acme (Pebble)', make: () => new AcmeAuthority(authority), offers: ['DNS'], delivers: true },
  );
  // The demo zones are served by PowerDNS, as the zone sync serves them.
  const { dnsProvider } = await import('../shared/dns/select.ts');
  const { syncZone } = await import('../shared/dns/sync.ts');
  await syncZone(dnsProvider() as never, 'demo-shop.nl');
}, 120_000);

afterAll(async () => {
  await pebble?.stop();
  await pdns?.stop();
});

/** A request for `names` (the first the common name) with a fresh key, as renew shows it to the authority. */
async function requestFor(names: string[], authKey = false): Promise<{ opening: OpeningRequest; csr: string }> {
  const csr = makeCsr({ key: 'p256', cn: names[0], san: names });
  const parsed = await parseCsr(csr);
  const opening: OpeningRequest = {
    processId: 9000 + Math.floor(Math.random() * 1000),
    validationLevel: 'DV',
    period: 12,
    csrSha256: parsed.summary.sha256,
    uniqueValue: `contract${Date.now()}`,
    requestedAt: new Date(),
    csr,
    names,
    authKey,
    csrNames: names,
  };
  return { opening, csr };
}

/**
 * The zones with the DNS records the service adds itself when the request opens (renew writes the
 * DCV records whose contents the authority gave at once: shared/certificates/zones.ts).
 */
function withOpenedRecords(zones: Map<string, ZoneRecord | undefined>, validations: Validations): Map<string, ZoneRecord | undefined> {
  const out = new Map(zones);
  for (const entry of validations.dcv) {
    const zone = out.get(entry.commonName);
    if (!zone || entry.type !== 'DNS' || !entry.dnsRecord || !entry.dnsType || !entry.dnsContents) continue;
    const record = { name: entry.dnsRecord, type: entry.dnsType, content: entry.dnsContents, ttl: 60 };
    for (const [name, z] of out) if (z?.domainName === zone.domainName) out.set(name, { ...z, records: [...z.records, record] });
  }
  return out;
}

/** Advances the request as the DCV job does (each step recorded before the next) until it is issued or `seconds` passed. */
async function advanceUntilIssued(
  port: CertificateAuthorityPort,
  request: RequestView,
  zones: Map<string, ZoneRecord | undefined>,
  seconds = 45,
): Promise<{ issued?: Issued; last: Step; steps: number }> {
  const deadline = Date.now() + seconds * 1000;
  let view = request;
  let last: Step = { validations: request.validations };
  let steps = 0;
  while (Date.now() < deadline) {
    last = await port.advance(view, zones, new Date(), 'contract');
    steps++;
    if (last.issued) return { issued: last.issued, last, steps };
    view = { ...view, validations: last.validations, ...(last.order ? { order: last.order } : {}) };
    await new Promise((r) => setTimeout(r, 250));
  }
  return { last, steps };
}

const dns = (names: string[]): DcvChoice[] => names.map((commonName) => ({ commonName, type: 'DNS' }));

describe.each([0, 1])('the certificate-authority port, adapter %i', (index) => {
  const adapter = () => adapters[index] as Adapter;

  it('opens a DNS request with one waiting DNS entry per name: its record under the name, the zone of a managed name', async () => {
    const names = ['www.demo-shop.nl', 'demo-shop.nl'];
    const { opening } = await requestFor(names);
    const zones = await managedZonesFor('demo', names);
    const opened = await adapter().make().open(opening, dns(names), zones);
    expect(opened.atOnce, adapter().name).toBeUndefined();
    expect(
      opened.validations.dcv.map((e) => ({ name: e.commonName, type: e.type, status: e.status, zone: e.zone, record: e.dnsRecord })),
      adapter().name,
    ).toEqual([
      { name: 'www.demo-shop.nl', type: 'DNS', status: 'WAITING', zone: 'demo-shop.nl', record: expect.stringMatching(/\.demo-shop\.nl$/) },
      { name: 'demo-shop.nl', type: 'DNS', status: 'WAITING', zone: 'demo-shop.nl', record: expect.stringMatching(/\.demo-shop\.nl$/) },
    ]);
    expect(opened.validations.organization, adapter().name).toBeUndefined();
  });

  it('opens a request by each DCV method it offers, and refuses the others with a ValidationError naming the entry', async () => {
    const names = ['www.demo-shop.nl'];
    const zones = await managedZonesFor('demo', names);
    for (const type of ['DNS', 'EMAIL', 'FILE'] as const) {
      const { opening } = await requestFor(names);
      const choice: DcvChoice = { commonName: names[0] as string, type, ...(type === 'EMAIL' ? { email: 'admin@demo-shop.nl' } : {}) };
      const opened = adapter().make().open(opening, [choice], zones);
      if (adapter().offers.includes(type)) {
        expect(
          (await opened).validations.dcv.map((e) => e.type),
          `${adapter().name} ${type}`,
        ).toEqual([type]);
      } else {
        await expect(opened, `${adapter().name} ${type}`).rejects.toMatchObject({
          type: 'ValidationError',
          status: 400,
          extra: { violations: [{ field: 'dcv[0].type' }] },
        });
      }
    }
  });

  it('issues a certificate for the request once the records it asked for are served, advanced a step at a time', async () => {
    const names = ['www.demo-shop.nl', 'demo-shop.nl'];
    const { opening, csr } = await requestFor(names);
    const port = adapter().make();
    const opened = await port.open(opening, dns(names), await managedZonesFor('demo', names));
    const zones = withOpenedRecords(await managedZonesFor('demo', names), opened.validations);
    const { issued, last } = await advanceUntilIssued(port, { ...opening, validations: opened.validations }, zones);
    expect(issued, `${adapter().name}: ${JSON.stringify(last.order?.problem ?? last.validations.dcv)}`).toBeDefined();
    const { serialNumber, startDate, expiryDate, certificate } = issued as Issued;
    expect(serialNumber).toMatch(/^[0-9A-F]+$/);
    expect(Date.parse(expiryDate)).toBeGreaterThan(Date.parse(startDate));
    expect(
      last.validations.dcv.every((e) => e.status === 'VALIDATED'),
      adapter().name,
    ).toBe(true);
    expect(certificate !== undefined, adapter().name).toBe(adapter().delivers);
    if (certificate !== undefined) {
      const x = new X509Certificate(certificate);
      expect(x.subjectAltName?.split(', ').sort()).toEqual(names.map((n) => `DNS:${n}`).sort());
      expect(x.publicKey.equals(csrPublicKey(csr))).toBe(true);
    }
  });

  it('cancels a request the authority holds nothing of at once, and one it holds by a withdrawal that then goes through', async () => {
    const names = ['contract-outside.example'];
    const port = adapter().make();
    const fresh = await requestFor(names);
    const opened = await port.open(fresh.opening, dns(names), new Map());
    const view: RequestView = { ...fresh.opening, validations: opened.validations };
    expect(await port.cancel(view, new Date()), adapter().name).toEqual({ withdrawLater: false });
    await expect(port.withdraw(view, new Date())).resolves.toEqual({ done: true });
    // Advanced until the authority holds the request (an ACME order), then cancelled: waiting on a record no one publishes.
    let held = view;
    for (let i = 0; i < 4; i++) {
      const step = await port.advance(held, new Map(), new Date(), 'contract');
      expect(step.issued, adapter().name).toBeUndefined();
      held = { ...held, validations: step.validations, ...(step.order ? { order: step.order } : {}) };
    }
    const cancelled = await port.cancel(held, new Date());
    if (cancelled.withdrawLater) await expect(port.withdraw(held, new Date())).resolves.toEqual({ done: true });
    expect(cancelled.withdrawLater, adapter().name).toBe(held.order?.url !== undefined);
  });

  it('sends DCV e-mails again where it validates by e-mail, and refuses with a ValidationError where it does not', async () => {
    const names = ['www.demo-shop.nl'];
    const { opening } = await requestFor(names);
    const port = adapter().make();
    const byEmail = adapter().offers.includes('EMAIL');
    const choice: DcvChoice = { commonName: 'www.demo-shop.nl', type: byEmail ? 'EMAIL' : 'DNS', email: 'admin@demo-shop.nl' };
    const opened = await port.open(opening, [choice], await managedZonesFor('demo', names));
    const resent = port.resendDcvEmails({ ...opening, validations: opened.validations }, opened.validations.dcv, new Date());
    if (byEmail) expect((await resent).commonNames, adapter().name).toEqual(['www.demo-shop.nl']);
    else await expect(resent, adapter().name).rejects.toMatchObject({ type: 'ValidationError', status: 400 });
  });
});

import { execFileSync } from 'node:child_process';

/** The demo dataset's objects both SDK runs use (README, "The sandbox"), and a prefix fresh per run. */
export interface Fixtures {
  apiKey: string;
  customer: string;
  /** Names this run creates (contacts, zones, checked names) start with it, so runs never collide. */
  prefix: string;
  certificateId: number;
  /** The certificate's common name, for the renewal's CSR. */
  certificateName: string;
  /**
   * The renewal's DCV: e-mail to this address for every name. The sandbox approves an e-mail a
   * minute after the request, so the run cancels the renewal before it completes and the
   * certificate stays renewable for the next run (DNS in the managed zone would complete at once).
   */
  dcvEmail: string;
  product: string;
  /** A certificate process with DCV to show (process info). */
  certificateProcessId: number;
  /** A sandbox name whose transfer waits for the FOA a day: requested, resent and cancelled each run. */
  transferDomain: string;
  transferAuthcode: string;
  registrant: string;
  /** A domain of the customer with a managed zone whose records a template links. */
  domain: string;
  zoneId: number;
  /** A domain of the customer whose managed zone no template links (its records are editable). */
  unlinkedDomain: string;
  /** A zone with a hidden master. */
  hiddenMasterZoneId: number;
}

export function demoFixtures(): Fixtures {
  return {
    apiKey: 'demo-key',
    customer: 'demo',
    prefix: `sdk-${Date.now().toString(36)}`,
    certificateId: 1001,
    certificateName: 'www.demo-shop.nl',
    dcvEmail: 'admin@demo-shop.nl',
    product: 'ssl_sectigo_dv',
    certificateProcessId: 501,
    transferDomain: 'transfer-foa.net',
    transferAuthcode: 'NET-TRANSFER-2026',
    registrant: 'demo-registrant',
    domain: 'demo-shop.nl',
    zoneId: 101,
    unlinkedDomain: 'demo-secure.com',
    hiddenMasterZoneId: 102,
  };
}

/** The names of a certificate for `name`: it, and the free www/non-www name. */
export function namesOf(name: string): string[] {
  return [name, name.replace(/^www\./, '')];
}

/** The renewal's DCV entries: e-mail for every name (see Fixtures.dcvEmail). */
export function emailDcv(fx: Fixtures): { commonName: string; type: 'EMAIL'; email: string }[] {
  return namesOf(fx.certificateName).map((commonName) => ({ commonName, type: 'EMAIL', email: fx.dcvEmail }));
}

/** A fresh RSA-2048 CSR for `name` (and the free www/non-www name), from the machine's openssl. */
export function csrFor(name: string): string {
  const [, bare] = namesOf(name);
  return execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      '/dev/null',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name},DNS:${bare}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
}

import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../infra/dataset.ts';
import { exportDataset } from '../infra/export.ts';
import { csrPublicKey } from '../shared/certificates/csr.ts';
import { getSandboxCa } from '../shared/db/repositories/sandbox-ca.ts';
import { call } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';

/**
 * The sandbox authority's certificates are real files (docs/certificates.md, "The sandbox CA"):
 * the demo certificates and every certificate the sandbox issues download in every format, each
 * certifies its names and its request's key for exactly its startDate to expiryDate, and the
 * sandbox CA the table made once and keeps verifies it (`openssl verify` where the machine has it).
 */

const work = mkdtempSync(join(tmpdir(), 'sandbox-certificates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const download = async (id: number, format: string) => {
  const res = await call('GET', `/v2/ssl/certificates/${id}/download?format=${format}`);
  expect(res.status, `${format} of ${id}: ${JSON.stringify(res.body)}`).toBe(200);
  return res;
};

const pemBlocks = (text: string) => text.match(/-----BEGIN [A-Z0-9 ]+-----[^-]+-----END [A-Z0-9 ]+-----\n/g) ?? [];

/** `openssl verify -CAfile <bundle> <crt>`: its output, or the failure's. */
function opensslVerify(name: string, crt: string, bundle: string): string {
  const crtFile = join(work, `${name}.crt`);
  const bundleFile = join(work, `${name}.ca-bundle`);
  writeFileSync(crtFile, crt);
  writeFileSync(bundleFile, bundle);
  try {
    return execFileSync('openssl', ['verify', '-purpose', 'sslserver', '-CAfile', bundleFile, crtFile], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    return `failed: ${(error as { stdout?: string; stderr?: string }).stderr ?? String(error)}`;
  }
}

/** Checks every format of a certificate against its record (GET) and the CA; answers its CRT and bundle. */
async function checkFiles(id: number): Promise<{ crt: string; bundle: string }> {
  const record = (await call('GET', `/v2/ssl/certificates/${id}`)).body;
  const crt = (await download(id, 'CRT')).raw;
  const ca = (await download(id, 'CA')).raw;
  const bundle = (await download(id, 'CA_BUNDLE')).raw;
  const csr = (await download(id, 'CSR')).raw;
  const leaf = new X509Certificate(crt);
  const issuer = new X509Certificate(ca);
  // Its names, its request's key, its dates, its serial, and its issuer's signature.
  expect(leaf.subjectAltName?.split(', ').sort()).toEqual(record.san.map((n: string) => `DNS:${n}`).sort());
  expect(leaf.subject).toContain(`CN=${record.domainName}`);
  expect(leaf.publicKey.equals(csrPublicKey(csr))).toBe(true);
  expect(new Date(leaf.validFrom).toISOString()).toBe(new Date(record.startDate).toISOString());
  expect(new Date(leaf.validTo).toISOString()).toBe(new Date(record.expiryDate).toISOString());
  expect(leaf.serialNumber.replace(/^0+/, '')).toBe(record.serialNumber.toUpperCase().replace(/^0+/, ''));
  expect(leaf.checkIssued(issuer)).toBe(true);
  expect(leaf.verify(issuer.publicKey)).toBe(true);
  expect(leaf.ca).toBe(false);
  expect(issuer.ca).toBe(true);
  expect(record.certificate).toBe(crt);
  expect(pemBlocks(bundle)).toEqual([ca]);
  // PKCS#7: the certificate and its chain.
  const p7 = (await download(id, 'PKCS7')).raw;
  const der = Buffer.from(p7.replace(/-----[A-Z0-9 ]+-----|\s/g, ''), 'base64');
  expect(new x509.X509Certificates(der).map((c) => c.toString('pem').trim())).toEqual([crt.trim(), ca.trim()]);
  // ZIP: every file.
  const zip = await download(id, 'ZIP');
  const files = unzipSync(new Uint8Array(zip.bytes as Buffer));
  expect(Object.keys(files).map((f) => f.slice(f.lastIndexOf('.')))).toEqual(['.crt', '.ca-bundle', '.p7b', '.csr']);
  expect(Object.values(files).map((f) => Buffer.from(f).toString())).toEqual([crt, bundle, p7, csr]);
  return { crt, bundle };
}

describe('the sandbox CA', () => {
  it.each([1001, 1002, 1003])('signs demo certificate %i for its names, key and dates; every format downloads', async (id) => {
    const { crt, bundle } = await checkFiles(id);
    if (hasOpenssl) expect(opensslVerify(`demo-${id}`, crt, bundle)).toMatch(/: OK$/);
  });

  it('is made once per table and kept: every certificate, demo or issued, chains to it', async () => {
    const kept = await getSandboxCa();
    expect(kept?.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    const demoBundle = (await download(1001, 'CA_BUNDLE')).raw;
    expect(pemBlocks(demoBundle)).toEqual([kept?.certificate]);
    // Loading the dataset again signs with the CA kept, never a second one.
    await loadDataset(await readDatasetFile(demoDataFile), { overwrite: true });
    expect((await getSandboxCa())?.certificate).toBe(kept?.certificate);
    expect((await download(1002, 'CA_BUNDLE')).raw).toBe(demoBundle);
  });

  it('signs what it issues: an auth-key renewal downloads in every format and verifies', async () => {
    const cert = await testCertificate({ expiresInDays: 10 });
    const names = ['www.demo-shop.nl', 'demo-shop.nl'];
    const csr = makeCsr({ key: 'rsa2048', cn: names[0], san: names });
    const res = await renew(cert.id, { period: 12, csr, authKey: true, dcv: names.map((commonName) => ({ commonName, type: 'DNS' })) });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const renewed = (await call('GET', `/v2/ssl/certificates/${cert.id}`)).body;
    expect(renewed.renewedBy, JSON.stringify(renewed)).toEqual(expect.any(Number));
    const { crt, bundle } = await checkFiles(renewed.renewedBy);
    expect(new X509Certificate(crt).publicKey.equals(csrPublicKey(csr))).toBe(true);
    expect(bundle).toBe((await download(1001, 'CA_BUNDLE')).raw);
    if (hasOpenssl) expect(opensslVerify('issued', crt, bundle)).toMatch(/: OK$/);
    // Another CA's bundle does not verify it.
    if (hasOpenssl) {
      const stranger = makeSelfSignedCa();
      expect(opensslVerify('stranger', crt, await stranger)).toMatch(/^failed/);
    }
  });

  it('keeps its key out of every export', async () => {
    const exported = JSON.stringify(await exportDataset());
    const kept = await getSandboxCa();
    expect(exported).not.toContain(kept?.privateKey.split('\n')[1]);
  });
});

/** A CA of no one's (a self-signed certificate): what `openssl verify` must refuse as the issuer. */
async function makeSelfSignedCa(): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await crypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Stranger CA',
    keys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  return cert.toString('pem');
}

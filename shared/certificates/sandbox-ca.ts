import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { claimSandboxCa, getSandboxCa, type SandboxCa, sandboxCaTable } from '../db/repositories/sandbox-ca.ts';
import { toWireTime } from '../time.ts';
import { csrPublicKey } from './csr.ts';

/**
 * The sandbox authority's signing (docs/certificates.md, "The sandbox CA"): every certificate the
 * sandbox authority issues, and every demo certificate a dataset loads on a stage that runs it, is
 * a real X.509 certificate for its names and its request's key, valid from its `startDate` to its
 * `expiryDate`, signed by a CA the sandbox makes once per table and keeps
 * (shared/db/repositories/sandbox-ca.ts). Loaded with `import()` by the sandbox authority only, and
 * left out of the bundles of stages that run another authority (`SANDBOX_CA_BUNDLED`,
 * infra/bundling.ts).
 */

/** The CA's key: ECDSA P-256, signing with SHA-256. */
const caAlgorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** How long the CA is valid on either side of its making: wider than any certificate it signs (demo ones are dated back). */
const caYearsBack = 5;
const caYearsAhead = 25;

/** What a certificate is signed for. */
export interface SandboxCertificateRequest {
  /** Hexadecimal serial number (the record's). */
  serialNumber: string;
  commonName: string;
  /** Every name it certifies (its subjectAltName), the common name first. */
  names: readonly string[];
  organization?: string;
  /** Wire times: the certificate's notBefore and notAfter. */
  startDate: string;
  expiryDate: string;
  /** The CSR (PEM) whose key it certifies. */
  csr: string;
}

/** A signed certificate and its chain (the sandbox CA's certificate), PEM. */
export interface SandboxSigned {
  certificate: string;
  chain: string[];
}

interface LoadedCa {
  certificate: x509.X509Certificate;
  pem: string;
  key: webcrypto.CryptoKey;
}

/** The CA of each table this process signed for (a warm function signs without reading it again). */
const loaded = new Map<string, Promise<LoadedCa>>();

function pemOf(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`;
}

function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) [^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/** A new CA: a fresh key and its self-signed certificate, its name unique to it. */
async function makeCa(now: Date): Promise<SandboxCa> {
  const keys = (await webcrypto.subtle.generateKey(caAlgorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const id = randomBytes(4).toString('hex').toUpperCase();
  const notBefore = new Date(now);
  notBefore.setUTCFullYear(notBefore.getUTCFullYear() - caYearsBack);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + caYearsAhead);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`Registrar Sandbox CA ${id}`] }, { O: ['Registrar sandbox (not trusted)'] }],
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: caAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certificate: `${certificate.toString('pem')}\n`,
    privateKey: pemOf('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    createdDate: toWireTime(now),
  };
}

/** The table's CA: read, else made and kept (the first writer wins). */
async function loadCa(): Promise<LoadedCa> {
  const kept = (await getSandboxCa()) ?? (await claimSandboxCa(await makeCa(new Date())));
  const key = await webcrypto.subtle.importKey('pkcs8', derOf(kept.privateKey), caAlgorithm, false, ['sign']);
  return { certificate: new x509.X509Certificate(kept.certificate), pem: kept.certificate, key };
}

/** The table's CA, loaded once per process and table (a failed load is tried again next time). */
function sandboxCa(): Promise<LoadedCa> {
  const table = sandboxCaTable();
  let ca = loaded.get(table);
  if (!ca) {
    ca = loadCa();
    loaded.set(table, ca);
    ca.catch(() => loaded.delete(table));
  }
  return ca;
}

/** The sandbox CA's certificate (PEM) for this table, made on first use. */
export async function sandboxCaCertificate(): Promise<string> {
  return (await sandboxCa()).pem;
}

/** The certificate's serial number: the record's when it is hexadecimal (at most 20 bytes, RFC 5280), else derived from it. */
function serialHex(serialNumber: string): string {
  if (/^[0-9A-Fa-f]{1,40}$/.test(serialNumber)) return serialNumber;
  return createHash('sha256').update(serialNumber).digest('hex').slice(0, 32);
}

/** A certificate for the request's names and key, signed by the table's sandbox CA. */
export async function signSandboxCertificate(request: SandboxCertificateRequest): Promise<SandboxSigned> {
  const ca = await sandboxCa();
  const spki = csrPublicKey(request.csr).export({ type: 'spki', format: 'der' });
  const publicKey = new x509.PublicKey(spki);
  const rsa = publicKey.algorithm.name.startsWith('RSA');
  const subject: x509.JsonName = [{ CN: [request.commonName] }];
  if (request.organization) subject.push({ O: [request.organization] });
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex(request.serialNumber),
    subject,
    issuer: ca.certificate.subjectName,
    notBefore: new Date(request.startDate),
    notAfter: new Date(request.expiryDate),
    publicKey,
    signingKey: ca.key,
    signingAlgorithm: caAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | (rsa ? x509.KeyUsageFlags.keyEncipherment : 0), true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([...new Set(request.names)].map((value) => ({ type: 'dns' as const, value }))),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate.publicKey),
    ],
  });
  return { certificate: `${certificate.toString('pem')}\n`, chain: [ca.pem] };
}

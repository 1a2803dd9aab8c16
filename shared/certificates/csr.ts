// tsyringe (inside @peculiar/x509) needs the Reflect metadata API before the library loads.
import 'reflect-metadata';
import { createHash, createPublicKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { CsrSummary } from './model.ts';

/**
 * PKCS#10 parsing and verification (contract 3.2: "the CSR is parsed and its signature verified").
 * This module loads the X.509 library, so only the renew function imports it.
 */

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** Why a CSR is refused: the message goes to the caller as the violation of `csr`. */
export class CsrRejected extends Error {}

/** A parsed, verified CSR: its DER (for DCV hashes) and what it asks to certify. */
export interface ParsedCsr {
  der: Uint8Array;
  summary: CsrSummary;
}

const sanOid = '2.5.29.17';

/** Curves the CA/Browser Forum baseline requirements allow (P-256 and up). */
const acceptedCurves: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** The conventional name of a CSR's signature algorithm, from the algorithm the library resolved. */
function signatureName(csr: x509.Pkcs10CertificateRequest): string {
  let algorithm: { name?: string; hash?: { name?: string } | string };
  try {
    algorithm = csr.signatureAlgorithm as typeof algorithm;
  } catch {
    throw new CsrRejected('is signed with an unsupported signature algorithm');
  }
  const hash = (typeof algorithm.hash === 'string' ? algorithm.hash : algorithm.hash?.name ?? '').replace('-', '').toUpperCase();
  switch (algorithm.name) {
    case 'RSASSA-PKCS1-v1_5':
      return `${hash.toLowerCase()}WithRSAEncryption`;
    case 'RSA-PSS':
      return `rsassaPss-${hash}`;
    case 'ECDSA':
      return `ecdsa-with-${hash}`;
    default:
      return algorithm.name ?? 'unknown';
  }
}

/** SHA-1 signatures are refused, as every public authority refuses them. */
const weakSignatures = new Set(['sha1WithRSAEncryption', 'ecdsa-with-SHA1']);

function first(name: x509.Name, field: string): string | undefined {
  return name.getField(field)[0];
}

/** Reads the PEM (or base64 DER) text of a CSR; any failure is the caller's CSR, never a 500. */
function decode(text: string): x509.Pkcs10CertificateRequest {
  try {
    return new x509.Pkcs10CertificateRequest(text.replace(/\r\n/g, '\n'));
  } catch {
    throw new CsrRejected('is not a PEM encoded PKCS#10 certificate signing request');
  }
}

function describeKey(spki: ArrayBuffer): { keyType: 'RSA' | 'EC'; keySize: number; curve?: string } {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch {
    throw new CsrRejected('has a public key of an unsupported type or curve; use RSA (2048 bits or more) or EC P-256/P-384/P-521');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits < 2048) throw new CsrRejected(`has an RSA key of ${bits} bits; at least 2048 bits are required`);
    return { keyType: 'RSA', keySize: bits };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = acceptedCurves[details.namedCurve ?? ''];
    if (!curve) throw new CsrRejected(`has an EC key on curve ${details.namedCurve ?? 'unknown'}; use P-256, P-384 or P-521`);
    return { keyType: 'EC', keySize: Number(curve.slice(2)), curve };
  }
  throw new CsrRejected(`has a ${key.asymmetricKeyType ?? 'unknown'} key; use RSA (2048 bits or more) or EC P-256/P-384/P-521`);
}

/**
 * Parses a CSR, checks its key (RSA >= 2048, EC P-256 and up) and verifies its self-signature,
 * which proves the requester holds the private key. Throws CsrRejected with the reason.
 */
export async function parseCsr(text: string): Promise<ParsedCsr> {
  const csr = decode(text);
  const key = describeKey(csr.publicKey.rawData);
  const signatureAlgorithm = signatureName(csr);
  if (weakSignatures.has(signatureAlgorithm)) throw new CsrRejected(`is signed with ${signatureAlgorithm}; use SHA-256 or stronger`);
  let verified = false;
  try {
    verified = await csr.verify();
  } catch {
    verified = false;
  }
  if (!verified) throw new CsrRejected('has a signature that does not verify against its own public key');

  const subject = csr.subjectName;
  const commonName = first(subject, 'CN')?.toLowerCase();
  const sanExtension = csr.extensions.find((e) => e.type === sanOid);
  const san: string[] = [];
  if (sanExtension) {
    const names = new x509.SubjectAlternativeNameExtension(sanExtension.rawData).names.items;
    for (const n of names) if (n.type === 'dns') san.push(n.value.toLowerCase());
  }
  const fields = {
    organization: first(subject, 'O'),
    organizationalUnit: first(subject, 'OU'),
    locality: first(subject, 'L'),
    state: first(subject, 'ST'),
    country: first(subject, 'C'),
    email: first(subject, 'E') ?? first(subject, '1.2.840.113549.1.9.1'),
  };
  const subjectFields = Object.fromEntries(Object.entries(fields).filter(([, val]) => val !== undefined)) as CsrSummary['subject'];
  return {
    der: new Uint8Array(csr.rawData),
    summary: {
      ...(commonName !== undefined ? { commonName } : {}),
      san,
      subject: subjectFields,
      ...key,
      signatureAlgorithm,
      sha256: createHash('sha256').update(new Uint8Array(csr.rawData)).digest('hex'),
    },
  };
}

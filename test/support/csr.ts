import 'reflect-metadata';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  Attribute,
  Extension,
  Extensions,
  GeneralName,
  id_ce_subjectAltName,
  Name,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';

/**
 * CSRs for the tests, built from Node's own keys and the ASN.1 modules of the X.509 library, so
 * every key type the rules talk about can be made (including curves WebCrypto refuses) and a
 * signature can be broken on purpose.
 */

export type KeyKind = 'rsa2048' | 'rsa1024' | 'rsa4096' | 'p256' | 'p384' | 'p192' | 'secp256k1' | 'ed25519';

export interface CsrOptions {
  key?: KeyKind;
  /** Subject as an RFC 4514 string (`CN=www.example.com, O=Example`); default CN only. */
  subject?: string;
  /** Common name, when `subject` is not given. */
  cn?: string;
  /** DNS names of the SAN extension. */
  san?: string[];
  /** Flip a bit of the signature, so the CSR parses but does not verify. */
  breakSignature?: boolean;
  /** Sign with SHA-1 instead of SHA-256. */
  sha1?: boolean;
}

const keyCache = new Map<KeyKind, { publicKey: KeyObject; privateKey: KeyObject }>();

function keyPair(kind: KeyKind) {
  let pair = keyCache.get(kind);
  if (!pair) {
    switch (kind) {
      case 'rsa2048':
      case 'rsa1024':
      case 'rsa4096':
        pair = generateKeyPairSync('rsa', { modulusLength: Number(kind.slice(3)) });
        break;
      case 'p256':
        pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
        break;
      case 'p384':
        pair = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
        break;
      case 'p192':
        pair = generateKeyPairSync('ec', { namedCurve: 'prime192v1' });
        break;
      case 'secp256k1':
        pair = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
        break;
      case 'ed25519':
        pair = generateKeyPairSync('ed25519');
        break;
    }
    keyCache.set(kind, pair);
  }
  return pair;
}

function signatureAlgorithm(kind: KeyKind, sha1: boolean): { id: AlgorithmIdentifier; hash: string | null } {
  if (kind.startsWith('rsa')) {
    return { id: new AlgorithmIdentifier({ algorithm: sha1 ? '1.2.840.113549.1.1.5' : '1.2.840.113549.1.1.11', parameters: null }), hash: sha1 ? 'sha1' : 'sha256' };
  }
  if (kind === 'ed25519') return { id: new AlgorithmIdentifier({ algorithm: '1.3.101.112' }), hash: null };
  return { id: new AlgorithmIdentifier({ algorithm: sha1 ? '1.2.840.10045.4.1' : '1.2.840.10045.4.3.2' }), hash: sha1 ? 'sha1' : 'sha256' };
}

/** A PEM CSR per the options (default: RSA 2048, CN www.example.com, no SANs). */
export function makeCsr(options: CsrOptions = {}): string {
  const kind = options.key ?? 'rsa2048';
  const { publicKey, privateKey } = keyPair(kind);
  const subject = options.subject ?? `CN=${options.cn ?? 'www.example.com'}`;
  const attributes: Attribute[] = [];
  if (options.san && options.san.length > 0) {
    const san = new SubjectAlternativeName(options.san.map((dNSName) => new GeneralName({ dNSName })));
    const extensions = new Extensions([new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(san)) })]);
    attributes.push(new Attribute({ type: '1.2.840.113549.1.9.14', values: [AsnConvert.serialize(extensions)] }));
  }
  const info = new CertificationRequestInfo({
    version: 0,
    subject: AsnConvert.parse(new x509.Name(subject).toArrayBuffer(), Name),
    subjectPKInfo: AsnConvert.parse(publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo),
  });
  info.attributes.push(...attributes);
  const tbs = Buffer.from(AsnConvert.serialize(info));
  const algorithm = signatureAlgorithm(kind, options.sha1 ?? false);
  const signature = sign(algorithm.hash, tbs, privateKey);
  if (options.breakSignature) signature[signature.length - 1] = (signature[signature.length - 1] as number) ^ 0x01;
  const request = new CertificationRequest({ certificationRequestInfo: info, signatureAlgorithm: algorithm.id, signature: new Uint8Array(signature).buffer as ArrayBuffer });
  const der = Buffer.from(AsnConvert.serialize(request));
  const body = der.toString('base64').match(/.{1,64}/g)?.join('\n') ?? '';
  return `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`;
}

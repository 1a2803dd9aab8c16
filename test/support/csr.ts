import { constants, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { id_mgf1, id_RSASSA_PSS, id_sha1, id_sha256, id_sha384, RsaSaPssParams } from '@peculiar/asn1-rsa';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  Attribute,
  AttributeTypeAndValue,
  AttributeValue,
  Extension,
  Extensions,
  GeneralName,
  id_ce_subjectAltName,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';

/**
 * CSRs for the tests, built from Node's own keys and the ASN.1 schemas of `@peculiar/asn1-csr`
 * and `@peculiar/asn1-x509`, so every key type the rules talk about can be made (including curves
 * WebCrypto refuses) and a signature or the signed bytes can be broken on purpose.
 */

export type KeyKind = 'rsa2048' | 'rsa1024' | 'rsa4096' | 'p256' | 'p384' | 'p521' | 'p192' | 'secp256k1' | 'ed25519';

export interface CsrOptions {
  key?: KeyKind;
  /** Subject as `TYPE=value` pairs separated by commas (`CN=www.example.com, O=Example`; types CN, O, OU, L, ST, C, E; values without commas); default CN only. */
  subject?: string;
  /** Common name, when `subject` is not given. */
  cn?: string;
  /** DNS names of the SAN extension. */
  san?: string[];
  /** Flip a bit of the signature, so the CSR parses but does not verify. */
  breakSignature?: boolean;
  /** Flip a bit of the signed part (the last character of the first subject value) after signing. */
  tamperInfo?: boolean;
  /** Sign with SHA-1 instead of SHA-256. */
  sha1?: boolean;
  /** Sign an RSA key with RSASSA-PSS: its digest, the salt length used and (if different) the one the parameters state. */
  pss?: { hash: 'sha1' | 'sha256' | 'sha384'; saltLength: number; statedSaltLength?: number };
  /** Declare this signature algorithm OID instead of the one used (no parameters). */
  statedAlgorithm?: string;
  /** Encode the length of the signed part in a needlessly long form (valid BER, not DER). */
  longFormInfoLength?: boolean;
  /** Put this DER, instead of a SAN extension, as the value of the extension request attribute. */
  extensionRequestValue?: Uint8Array;
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
      case 'p521':
        pair = generateKeyPairSync('ec', { namedCurve: 'secp521r1' });
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

/** Subject attribute types by their short name. */
const subjectTypes: Record<string, string> = {
  CN: '2.5.4.3',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  L: '2.5.4.7',
  ST: '2.5.4.8',
  C: '2.5.4.6',
  E: '1.2.840.113549.1.9.1',
};

/** The subject Name: one RDN per pair, as PrintableString when the text allows it, else UTF8String (E as IA5String). */
function subjectName(subject: string): Name {
  const rdns = subject.split(/,\s*/).map((pair) => {
    const at = pair.indexOf('=');
    const type = subjectTypes[pair.slice(0, at)];
    if (at < 0 || !type) throw new Error(`test CSR subject: cannot read '${pair}'`);
    const text = pair.slice(at + 1);
    let value: AttributeValue;
    if (type === subjectTypes.E) value = new AttributeValue({ ia5String: text });
    else if (/^[A-Za-z0-9 '()+,\-./:=?]*$/.test(text)) value = new AttributeValue({ printableString: text });
    else value = new AttributeValue({ utf8String: text });
    return new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value })]);
  });
  return new Name(rdns);
}

/** How the request is signed: the algorithm it states and the arguments of `crypto.sign`. */
function signing(
  kind: KeyKind,
  options: CsrOptions,
): { id: AlgorithmIdentifier; hash: string | null; padding?: { padding: number; saltLength: number } } {
  if (options.pss) {
    const hash = new AlgorithmIdentifier({ algorithm: { sha1: id_sha1, sha256: id_sha256, sha384: id_sha384 }[options.pss.hash] });
    const params = new RsaSaPssParams({
      hashAlgorithm: hash,
      maskGenAlgorithm: new AlgorithmIdentifier({ algorithm: id_mgf1, parameters: AsnConvert.serialize(hash) }),
      saltLength: options.pss.statedSaltLength ?? options.pss.saltLength,
    });
    return {
      id: new AlgorithmIdentifier({ algorithm: id_RSASSA_PSS, parameters: AsnConvert.serialize(params) }),
      hash: options.pss.hash,
      padding: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: options.pss.saltLength },
    };
  }
  const sha1 = options.sha1 ?? false;
  if (kind.startsWith('rsa')) {
    return {
      id: new AlgorithmIdentifier({ algorithm: sha1 ? '1.2.840.113549.1.1.5' : '1.2.840.113549.1.1.11', parameters: null }),
      hash: sha1 ? 'sha1' : 'sha256',
    };
  }
  if (kind === 'ed25519') return { id: new AlgorithmIdentifier({ algorithm: '1.3.101.112' }), hash: null };
  return { id: new AlgorithmIdentifier({ algorithm: sha1 ? '1.2.840.10045.4.1' : '1.2.840.10045.4.3.2' }), hash: sha1 ? 'sha1' : 'sha256' };
}

/** The DER length octets of `length`. */
function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** The PEM text of a DER CSR. */
export function pemOf(der: Uint8Array): string {
  const body =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g)
      ?.join('\n') ?? '';
  return `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** The DER of a PEM CSR made here. */
export function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
}

/** A PEM CSR per the options (default: RSA 2048, CN www.example.com, no SANs). */
export function makeCsr(options: CsrOptions = {}): string {
  const kind = options.key ?? 'rsa2048';
  const { publicKey, privateKey } = keyPair(kind);
  const subject = options.subject ?? `CN=${options.cn ?? 'www.example.com'}`;
  const attributes: Attribute[] = [];
  if (options.extensionRequestValue) {
    attributes.push(new Attribute({ type: '1.2.840.113549.1.9.14', values: [new Uint8Array(options.extensionRequestValue).buffer] }));
  } else if (options.san && options.san.length > 0) {
    const san = new SubjectAlternativeName(options.san.map((dNSName) => new GeneralName({ dNSName })));
    const extensions = new Extensions([
      new Extension({ extnID: id_ce_subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(san)) }),
    ]);
    attributes.push(new Attribute({ type: '1.2.840.113549.1.9.14', values: [AsnConvert.serialize(extensions)] }));
  }
  const info = new CertificationRequestInfo({
    version: 0,
    subject: subjectName(subject),
    subjectPKInfo: AsnConvert.parse(publicKey.export({ format: 'der', type: 'spki' }), SubjectPublicKeyInfo),
  });
  info.attributes.push(...attributes);
  let tbs = Buffer.from(AsnConvert.serialize(info));
  if (options.longFormInfoLength) {
    // 30 <length> <content> becomes 30 <length with one more, zero, octet> <content>.
    const lengthOctets = derLength(tbs.length - 4);
    if (tbs[1] !== 0x82 || lengthOctets.length !== 3) throw new Error('test CSR: unexpected length of the signed part');
    tbs = Buffer.concat([Buffer.from([0x30, 0x83, 0x00]), tbs.subarray(2)]);
  }
  const algorithm = signing(kind, options);
  const signature = sign(algorithm.hash, tbs, algorithm.padding ? { key: privateKey, ...algorithm.padding } : privateKey);
  if (options.breakSignature) signature[signature.length - 1] = (signature[signature.length - 1] as number) ^ 0x01;
  const statedAlgorithm = options.statedAlgorithm ? new AlgorithmIdentifier({ algorithm: options.statedAlgorithm }) : algorithm.id;
  const request = new CertificationRequest({
    certificationRequestInfo: info,
    signatureAlgorithm: statedAlgorithm,
    signature: new Uint8Array(signature).buffer as ArrayBuffer,
  });
  let der = Buffer.from(AsnConvert.serialize(request));
  if (options.longFormInfoLength) {
    // The request again, with the signed part exactly as signed.
    const header = (der[1] as number) & 0x80 ? 2 + ((der[1] as number) & 0x7f) : 2;
    const rest = der.subarray(header + AsnConvert.serialize(info).byteLength);
    const content = Buffer.concat([tbs, rest]);
    der = Buffer.concat([Buffer.from([0x30]), derLength(content.length), content]);
  }
  if (options.tamperInfo) {
    const first = subject.slice(subject.indexOf('=') + 1).split(',')[0] ?? '';
    const at = der.indexOf(Buffer.from(first)) + first.length - 1;
    if (at < first.length - 1) throw new Error('test CSR: subject value not found');
    der[at] = (der[at] as number) ^ 0x01;
  }
  return pemOf(der);
}

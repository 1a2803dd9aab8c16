import { constants, createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import * as asn1 from 'asn1js';
import { Convert } from 'pvtsutils';
import type { CsrSummary } from '../model/certificate-process.ts';

/**
 * PKCS#10 parsing and verification (contract 3.2: "the CSR is parsed and its signature verified").
 * The request is decoded by asn1js (with its limits for untrusted input) and its structure read
 * here, field by field (RFC 2986); the key and the self-signature are checked by `node:crypto`.
 * No ASN.1 schema classes are built: their decorators cost the renew function's cold start
 * (docs/performance.md).
 */

/** Why a CSR is refused: the message goes to the caller as the violation of `csr`. */
export class CsrRejected extends Error {}

/** A parsed, verified CSR: its DER (for DCV hashes) and what it asks to certify. */
export interface ParsedCsr {
  der: Uint8Array;
  summary: CsrSummary;
}

const notACsr = 'is not a PEM encoded PKCS#10 certificate signing request';

/** PKCS#9 extensionRequest: the attribute that carries the extensions a CSR asks for. */
const extensionRequestOid = '1.2.840.113549.1.9.14';

/** The subjectAltName extension (RFC 5280 section 4.2.1.6). */
const subjectAltNameOid = '2.5.29.17';

/** Subject attribute types read into the summary. */
const subjectOids = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  locality: '2.5.4.7',
  state: '2.5.4.8',
  country: '2.5.4.6',
  email: '1.2.840.113549.1.9.1',
};

/** Curves the CA/Browser Forum baseline requirements allow (P-256 and up). */
const acceptedCurves: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** Digests by OID (as hash of RSASSA-PSS), with their conventional names. */
const digests: Record<string, string> = {
  '1.3.14.3.2.26': 'SHA1',
  '2.16.840.1.101.3.4.2.1': 'SHA256',
  '2.16.840.1.101.3.4.2.2': 'SHA384',
  '2.16.840.1.101.3.4.2.3': 'SHA512',
};

/** RSASSA-PKCS1-v1_5 signature algorithms by OID (RFC 8017), with their digest. */
const rsaPkcs1: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'SHA1',
  '1.2.840.113549.1.1.11': 'SHA256',
  '1.2.840.113549.1.1.12': 'SHA384',
  '1.2.840.113549.1.1.13': 'SHA512',
};

/** ECDSA signature algorithms by OID (RFC 5758 and RFC 3279), with their digest. */
const ecdsa: Record<string, string> = {
  '1.2.840.10045.4.1': 'SHA1',
  '1.2.840.10045.4.3.2': 'SHA256',
  '1.2.840.10045.4.3.3': 'SHA384',
  '1.2.840.10045.4.3.4': 'SHA512',
};

/** RSASSA-PSS (RFC 4055): its digest and salt length are in the algorithm's parameters. */
const rsassaPssOid = '1.2.840.113549.1.1.10';

/** SHA-1 signatures are refused, as every public authority refuses them. */
const weakSignatures = new Set(['sha1WithRSAEncryption', 'ecdsa-with-SHA1', 'rsassaPss-SHA1']);

/** How a signature is checked: the key type it needs, its digest and, for RSASSA-PSS, the salt length. */
interface Scheme {
  keyType: 'RSA' | 'EC';
  digest: string;
  pssSaltLength?: number;
}

/** Thrown by the readers below when the DER is not shaped as RFC 2986 says: the CSR is refused. */
function malformed(): never {
  throw new CsrRejected(notACsr);
}

/** The one ASN.1 value in `bytes` (BER, as the schema parsers read it), with asn1js's default limits on depth and nodes. */
function decodeAsn1(bytes: ArrayBuffer | Uint8Array): asn1.AsnType {
  const { offset, result } = asn1.fromBER(bytes, { parseEmbedded: false });
  if (offset === -1 || result.error !== '') malformed();
  return result;
}

/** The elements of a SEQUENCE (or of a SET when `set`), at least `min` of them. */
function elementsOf(block: unknown, min = 0, set = false): asn1.AsnType[] {
  if (!(block instanceof (set ? asn1.Set : asn1.Sequence))) malformed();
  const elements = block.valueBlock.value as asn1.AsnType[];
  if (elements.length < min) malformed();
  return elements;
}

/** The dotted text of an OBJECT IDENTIFIER. */
function oidOf(block: unknown): string {
  if (!(block instanceof asn1.ObjectIdentifier)) malformed();
  return block.getValue();
}

/** Whether a value carries the context-specific tag [n]. */
function isContext(block: asn1.AsnType | undefined, n: number): boolean {
  return block !== undefined && block.idBlock.tagClass === 3 && block.idBlock.tagNumber === n;
}

/** An AlgorithmIdentifier (RFC 5280): its OID and its parameters, if any. */
function algorithmOf(block: unknown): { oid: string; parameters?: asn1.AsnType } {
  const [oid, parameters] = elementsOf(block, 1);
  return { oid: oidOf(oid), ...(parameters && !(parameters instanceof asn1.Null) ? { parameters } : {}) };
}

/**
 * RSASSA-PSS-params (RFC 4055 section 3.1): the hash's OID and the salt length. Each field is
 * explicitly tagged and optional; one left out takes its default (SHA-1, salt length 20).
 */
function pssParametersOf(parameters: asn1.AsnType): { hashOid: string; saltLength: number } {
  let hashOid = '1.3.14.3.2.26';
  let saltLength = 20;
  for (const field of elementsOf(parameters)) {
    if (!(field instanceof asn1.Constructed) || field.idBlock.tagClass !== 3) malformed();
    const [inner] = field.valueBlock.value as asn1.AsnType[];
    if (isContext(field, 0)) hashOid = algorithmOf(inner).oid;
    if (isContext(field, 2)) {
      if (!(inner instanceof asn1.Integer)) malformed();
      saltLength = inner.valueBlock.valueDec;
    }
  }
  return { hashOid, saltLength };
}

/**
 * The conventional name of a CSR's signature algorithm and how to check it. An algorithm this
 * module cannot check has no scheme: such a signature does not verify.
 */
function signatureAlgorithm(algorithm: { oid: string; parameters?: asn1.AsnType }): { name: string; scheme?: Scheme } {
  const oid = algorithm.oid;
  const pkcs1 = rsaPkcs1[oid];
  if (pkcs1) return { name: `${pkcs1.toLowerCase()}WithRSAEncryption`, scheme: { keyType: 'RSA', digest: pkcs1 } };
  const ec = ecdsa[oid];
  if (ec) return { name: `ecdsa-with-${ec}`, scheme: { keyType: 'EC', digest: ec } };
  if (oid !== rsassaPssOid) return { name: oid };
  // RSASSA-PSS names its digest and salt length in its parameters (RFC 4055); without them it
  // cannot be checked. MGF1 is taken with the same digest, the only combination in use.
  if (!algorithm.parameters) return { name: 'rsassaPss-' };
  let params: { hashOid: string; saltLength: number };
  try {
    params = pssParametersOf(algorithm.parameters);
  } catch {
    throw new CsrRejected('is signed with an unsupported signature algorithm');
  }
  const digest = digests[params.hashOid];
  if (!digest) return { name: `rsassaPss-${params.hashOid}` };
  const salt = params.saltLength;
  // A negative salt length would mean "any" to OpenSSL; the parameters name an exact one.
  const scheme = Number.isSafeInteger(salt) && salt >= 0 ? { keyType: 'RSA' as const, digest, pssSaltLength: salt } : undefined;
  return { name: `rsassaPss-${digest}`, ...(scheme ? { scheme } : {}) };
}

const pemBegin = '-----BEGIN ';
const pemEnd = '-----END ';
const pemDashes = '-----';

/** The label of an encapsulation boundary line (`-----BEGIN X-----` with `prefix` = pemBegin), else undefined. */
function boundaryLabel(line: string, prefix: string): string | undefined {
  if (!line.startsWith(prefix) || !line.endsWith(pemDashes) || line.length < prefix.length + pemDashes.length) return undefined;
  return line.slice(prefix.length, line.length - pemDashes.length);
}

/** Whether every character of a line is a base64 character (RFC 4648 alphabet and padding). */
function isBase64Line(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    const alphanumeric = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alphanumeric && c !== 43 && c !== 47 && c !== 61) return false;
  }
  return true;
}

/**
 * The base64 text of the first PEM block (RFC 7468), read line by line in one pass: text before
 * the BEGIN line is ignored (section 5.2), every line up to the END line with the same label must
 * be base64 (surrounding whitespace and blank lines allowed, section 3's lax reading), and headers
 * are refused (RFC 7468 defines none). Undefined when the text holds no BEGIN line; a block that
 * breaks these rules is no CSR. No regular expression runs over the text.
 */
function pemBase64(text: string): string | undefined {
  const lines = text.split('\n');
  const begin = lines.findIndex((line) => boundaryLabel(line.trim(), pemBegin) !== undefined);
  if (begin < 0) return undefined;
  const label = boundaryLabel((lines[begin] as string).trim(), pemBegin);
  const body: string[] = [];
  for (const raw of lines.slice(begin + 1)) {
    const line = raw.trim();
    if (line.startsWith(pemEnd)) {
      if (boundaryLabel(line, pemEnd) !== label || body.length === 0) break;
      return body.join('');
    }
    if (!isBase64Line(line)) break;
    body.push(line);
  }
  throw new CsrRejected(notACsr);
}

/** The bytes of a CSR given as PEM (the first block), hex, base64 or base64url DER. */
function bytesOf(text: string): ArrayBuffer {
  const pem = pemBase64(text.replaceAll('\r', '\n'));
  if (pem !== undefined) return Convert.FromBase64(pem);
  if (Convert.isHex(text)) return Convert.FromHex(text);
  if (Convert.isBase64(text)) return Convert.FromBase64(text);
  if (Convert.isBase64Url(text)) return Convert.FromBase64Url(text);
  throw new CsrRejected(notACsr);
}

/** A CertificationRequest (RFC 2986 section 4) as this module reads it. */
interface CertificationRequest {
  /** certificationRequestInfo exactly as it appears in the input: the signed bytes. */
  info: Uint8Array;
  subject: asn1.AsnType[];
  /** SubjectPublicKeyInfo's DER, as it appears in the input. */
  spki: Uint8Array;
  attributes: asn1.AsnType[];
  signatureAlgorithm: { oid: string; parameters?: asn1.AsnType };
  signature: Uint8Array;
}

/** The parts of a CertificationRequest; anything not shaped as RFC 2986 says is no CSR. */
function requestOf(der: ArrayBuffer): CertificationRequest {
  const [infoBlock, algorithm, signature] = elementsOf(decodeAsn1(der), 3);
  const [version, subject, spki, attributes] = elementsOf(infoBlock, 4);
  if (!(version instanceof asn1.Integer) || !(spki instanceof asn1.Sequence) || !(signature instanceof asn1.BitString)) malformed();
  if (!isContext(attributes, 0) || !(attributes instanceof asn1.Constructed)) malformed();
  // The signed bytes exactly as they appear in the input, so that a different re-encoding can
  // never change what is verified.
  return {
    info: (infoBlock as asn1.Sequence).valueBeforeDecodeView,
    subject: elementsOf(subject),
    spki: spki.valueBeforeDecodeView,
    attributes: attributes.valueBlock.value as asn1.AsnType[],
    signatureAlgorithm: algorithmOf(algorithm),
    signature: signature.valueBlock.valueHexView,
  };
}

/** Reads the PEM (or base64 DER) text of a CSR; any failure is the caller's CSR, never a 500. */
function decode(text: string): { der: ArrayBuffer; csr: CertificationRequest } {
  try {
    const der = bytesOf(text.replace(/\r\n/g, '\n'));
    return { der, csr: requestOf(der) };
  } catch {
    throw new CsrRejected(notACsr);
  }
}

function describeKey(spki: Uint8Array): { key: KeyObject; summary: { keyType: 'RSA' | 'EC'; keySize: number; curve?: string } } {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch {
    throw new CsrRejected('has a public key of an unsupported type or curve; use RSA (2048 bits or more) or EC P-256/P-384/P-521');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits < 2048) throw new CsrRejected(`has an RSA key of ${bits} bits; at least 2048 bits are required`);
    return { key, summary: { keyType: 'RSA', keySize: bits } };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = acceptedCurves[details.namedCurve ?? ''];
    if (!curve) throw new CsrRejected(`has an EC key on curve ${details.namedCurve ?? 'unknown'}; use P-256, P-384 or P-521`);
    return { key, summary: { keyType: 'EC', keySize: Number(curve.slice(2)), curve } };
  }
  throw new CsrRejected(`has a ${key.asymmetricKeyType ?? 'unknown'} key; use RSA (2048 bits or more) or EC P-256/P-384/P-521`);
}

/** Whether `signature` over `signed` verifies with `key` per `scheme` (ECDSA signatures are DER). */
function verifies(scheme: Scheme | undefined, keyType: 'RSA' | 'EC', key: KeyObject, signed: Uint8Array, signature: Uint8Array): boolean {
  if (!scheme || scheme.keyType !== keyType) return false;
  try {
    if (scheme.pssSaltLength !== undefined) {
      return verify(scheme.digest, signed, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: scheme.pssSaltLength }, signature);
    }
    if (keyType === 'RSA') return verify(scheme.digest, signed, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    return verify(scheme.digest, signed, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

/** The first value of a subject attribute (in a Name's RDNs), as text: undefined when absent or not a string. */
function first(subject: readonly asn1.AsnType[], oid: string): string | undefined {
  for (const rdn of subject) {
    for (const attribute of elementsOf(rdn, 0, true)) {
      const [type, value] = elementsOf(attribute, 2);
      if (oidOf(type) === oid) return value instanceof asn1.BaseStringBlock ? value.getValue() : undefined;
    }
  }
  return undefined;
}

/** The DNS names of the subjectAltName extension the CSR requests (lower-cased), if any. */
function requestedDnsNames(csr: CertificationRequest): string[] {
  const request = csr.attributes.map((a) => elementsOf(a, 2)).find(([type]) => oidOf(type) === extensionRequestOid);
  const value = request ? elementsOf(request[1], 0, true)[0] : undefined;
  if (!value) return [];
  const extension = elementsOf(value)
    .map((e) => elementsOf(e, 2))
    .find(([id]) => oidOf(id) === subjectAltNameOid);
  const extnValue = extension?.at(-1);
  if (!extension) return [];
  if (!(extnValue instanceof asn1.OctetString)) malformed();
  const names: string[] = [];
  for (const name of elementsOf(decodeAsn1(extnValue.valueBlock.valueHexView))) {
    // dNSName is [2] IMPLICIT IA5String: its content is the name's ASCII.
    if (isContext(name, 2) && name instanceof asn1.Primitive)
      names.push(Buffer.from(name.valueBlock.valueHexView).toString('latin1').toLowerCase());
  }
  return names;
}

/**
 * The public key a CSR (PEM or base64 DER, as parseCsr takes it) asks to certify, without
 * checking it or the signature: for a CSR that parseCsr accepted when it was received.
 */
export function csrPublicKey(text: string): KeyObject {
  return createPublicKey({ key: Buffer.from(decode(text).csr.spki), format: 'der', type: 'spki' });
}

/**
 * Parses a CSR, checks its key (RSA >= 2048, EC P-256 and up) and verifies its self-signature,
 * which proves the requester holds the private key. Throws CsrRejected with the reason.
 */
export async function parseCsr(text: string): Promise<ParsedCsr> {
  const { der, csr } = decode(text);
  const { key, summary: keySummary } = describeKey(csr.spki);
  const { name: signatureName, scheme } = signatureAlgorithm(csr.signatureAlgorithm);
  if (weakSignatures.has(signatureName)) throw new CsrRejected(`is signed with ${signatureName}; use SHA-256 or stronger`);
  if (!verifies(scheme, keySummary.keyType, key, csr.info, csr.signature)) {
    throw new CsrRejected('has a signature that does not verify against its own public key');
  }

  const subject = csr.subject;
  let san: string[];
  let commonName: string | undefined;
  let fields: Record<string, string | undefined>;
  try {
    san = requestedDnsNames(csr);
    commonName = first(subject, subjectOids.commonName)?.toLowerCase();
    fields = {
      organization: first(subject, subjectOids.organization),
      organizationalUnit: first(subject, subjectOids.organizationalUnit),
      locality: first(subject, subjectOids.locality),
      state: first(subject, subjectOids.state),
      country: first(subject, subjectOids.country),
      email: first(subject, subjectOids.email),
    };
  } catch {
    throw new CsrRejected(notACsr);
  }
  const subjectFields = Object.fromEntries(Object.entries(fields).filter(([, val]) => val !== undefined)) as CsrSummary['subject'];
  const bytes = new Uint8Array(der);
  return {
    der: bytes,
    summary: {
      ...(commonName !== undefined ? { commonName } : {}),
      san,
      subject: subjectFields,
      ...keySummary,
      signatureAlgorithm: signatureName,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
  };
}

import { constants, createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert, AsnProp, AsnPropTypes } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Extensions, id_ce_subjectAltName, type Name, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { Convert } from 'pvtsutils';
import type { CsrSummary } from '../model/certificate-process.ts';

/**
 * PKCS#10 parsing and verification (contract 3.2: "the CSR is parsed and its signature verified").
 * The request is read with the ASN.1 schemas of `@peculiar/asn1-csr` and `@peculiar/asn1-x509`;
 * the key and the self-signature are checked by `node:crypto`. Only the renew function imports it.
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

/**
 * RSASSA-PSS-params (RFC 4055 section 3.1), declared with the schema library's property
 * decorators (applied as calls). A field left out takes its default: SHA-1, MGF1 with SHA-1,
 * salt length 20, trailer field 1. Declared here rather than imported from @peculiar/asn1-rsa,
 * whose other schemas and constants are built at load time and cost the function's cold start.
 */
class RsaPssParameters {
  hashAlgorithm?: AlgorithmIdentifier;
  maskGenAlgorithm?: AlgorithmIdentifier;
  saltLength?: number;
  trailerField?: number;
}
AsnProp({ type: AlgorithmIdentifier, context: 0, optional: true })(RsaPssParameters.prototype, 'hashAlgorithm');
AsnProp({ type: AlgorithmIdentifier, context: 1, optional: true })(RsaPssParameters.prototype, 'maskGenAlgorithm');
AsnProp({ type: AsnPropTypes.Integer, context: 2, optional: true })(RsaPssParameters.prototype, 'saltLength');
AsnProp({ type: AsnPropTypes.Integer, context: 3, optional: true })(RsaPssParameters.prototype, 'trailerField');

/** SHA-1 signatures are refused, as every public authority refuses them. */
const weakSignatures = new Set(['sha1WithRSAEncryption', 'ecdsa-with-SHA1', 'rsassaPss-SHA1']);

/** How a signature is checked: the key type it needs, its digest and, for RSASSA-PSS, the salt length. */
interface Scheme {
  keyType: 'RSA' | 'EC';
  digest: string;
  pssSaltLength?: number;
}

/**
 * The conventional name of a CSR's signature algorithm and how to check it. An algorithm this
 * module cannot check has no scheme: such a signature does not verify.
 */
function signatureAlgorithm(algorithm: AlgorithmIdentifier): { name: string; scheme?: Scheme } {
  const oid = algorithm.algorithm;
  const pkcs1 = rsaPkcs1[oid];
  if (pkcs1) return { name: `${pkcs1.toLowerCase()}WithRSAEncryption`, scheme: { keyType: 'RSA', digest: pkcs1 } };
  const ec = ecdsa[oid];
  if (ec) return { name: `ecdsa-with-${ec}`, scheme: { keyType: 'EC', digest: ec } };
  if (oid !== rsassaPssOid) return { name: oid };
  // RSASSA-PSS names its digest and salt length in its parameters (RFC 4055); without them it
  // cannot be checked. MGF1 is taken with the same digest, the only combination in use.
  if (!algorithm.parameters) return { name: 'rsassaPss-' };
  let params: RsaPssParameters;
  try {
    params = AsnConvert.parse(algorithm.parameters, RsaPssParameters);
  } catch {
    throw new CsrRejected('is signed with an unsupported signature algorithm');
  }
  const hashOid = params.hashAlgorithm?.algorithm ?? '1.3.14.3.2.26';
  const digest = digests[hashOid];
  if (!digest) return { name: `rsassaPss-${hashOid}` };
  const salt = params.saltLength ?? 20;
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

/** Reads the PEM (or base64 DER) text of a CSR; any failure is the caller's CSR, never a 500. */
function decode(text: string): { der: ArrayBuffer; csr: CertificationRequest; info: Uint8Array } {
  try {
    const der = bytesOf(text.replace(/\r\n/g, '\n'));
    const csr = AsnConvert.parse(der, CertificationRequest);
    // The signed bytes exactly as they appear in the input (the parser keeps them), so that a
    // different re-encoding can never change what is verified.
    const raw = csr.certificationRequestInfoRaw as ArrayBuffer | Uint8Array | undefined;
    if (!raw) throw new CsrRejected(notACsr);
    return { der, csr, info: ArrayBuffer.isView(raw) ? raw : new Uint8Array(raw) };
  } catch {
    throw new CsrRejected(notACsr);
  }
}

function describeKey(spki: ArrayBuffer): { key: KeyObject; summary: { keyType: 'RSA' | 'EC'; keySize: number; curve?: string } } {
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

/** The first value of a subject attribute, as text. */
function first(name: Name, oid: string): string | undefined {
  for (const rdn of name) for (const attribute of rdn) if (attribute.type === oid) return attribute.value.toString();
  return undefined;
}

/** The DNS names of the subjectAltName extension the CSR requests (lower-cased), if any. */
function requestedDnsNames(csr: CertificationRequest): string[] {
  const request = csr.certificationRequestInfo.attributes.find((a) => a.type === extensionRequestOid);
  const value = request?.values[0];
  if (!value) return [];
  const extension = AsnConvert.parse(value, Extensions).find((e) => e.extnID === id_ce_subjectAltName);
  if (!extension) return [];
  const names: string[] = [];
  for (const name of AsnConvert.parse(extension.extnValue.buffer, SubjectAlternativeName)) {
    if (name.dNSName !== undefined) names.push(name.dNSName.toLowerCase());
  }
  return names;
}

/**
 * Parses a CSR, checks its key (RSA >= 2048, EC P-256 and up) and verifies its self-signature,
 * which proves the requester holds the private key. Throws CsrRejected with the reason.
 */
export async function parseCsr(text: string): Promise<ParsedCsr> {
  const { der, csr, info } = decode(text);
  const { key, summary: keySummary } = describeKey(AsnConvert.serialize(csr.certificationRequestInfo.subjectPKInfo));
  const { name: signatureName, scheme } = signatureAlgorithm(csr.signatureAlgorithm);
  if (weakSignatures.has(signatureName)) throw new CsrRejected(`is signed with ${signatureName}; use SHA-256 or stronger`);
  if (!verifies(scheme, keySummary.keyType, key, info, new Uint8Array(csr.signature))) {
    throw new CsrRejected('has a signature that does not verify against its own public key');
  }

  const subject = csr.certificationRequestInfo.subject;
  let san: string[];
  try {
    san = requestedDnsNames(csr);
  } catch {
    throw new CsrRejected(notACsr);
  }
  const commonName = first(subject, subjectOids.commonName)?.toLowerCase();
  const fields = {
    organization: first(subject, subjectOids.organization),
    organizationalUnit: first(subject, subjectOids.organizationalUnit),
    locality: first(subject, subjectOids.locality),
    state: first(subject, subjectOids.state),
    country: first(subject, subjectOids.country),
    email: first(subject, subjectOids.email),
  };
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

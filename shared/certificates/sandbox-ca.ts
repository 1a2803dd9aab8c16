import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import * as asn1 from 'asn1js';
import { claimSandboxCa, getSandboxCa, type SandboxCa, sandboxCaTable } from '../db/repositories/sandbox-ca.ts';
import { toWireTime } from '../time.ts';
import { csrPublicKey } from './csr.ts';

/**
 * The sandbox authority's signing (docs/certificates.md, "The sandbox CA"): every certificate the
 * sandbox authority issues, and every demo certificate a dataset loads on a stage that runs it, is
 * a real X.509 certificate for its names and its request's key, valid from its `startDate` to its
 * `expiryDate`, signed by a CA the sandbox makes once per table and keeps
 * (shared/db/repositories/sandbox-ca.ts). The certificates are written with asn1js (RFC 5280's
 * structures, DER) and signed with node:crypto, so the functions that issue (renew, the DCV job)
 * load no ASN.1 schema library. Imported by the sandbox authority's issuing only
 * (authority-sandbox.ts), and left out of the bundles of stages that run another authority
 * (`SANDBOX_CA_BUNDLED`, infra/bundling.ts).
 */

/** The CA's key: ECDSA P-256; it signs with SHA-256 (ecdsa-with-SHA256, RFC 5758). */
const caCurve = 'P-256';
const ecdsaWithSha256 = '1.2.840.10045.4.3.2';

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

/** A CA ready to sign: what its kept item holds, read once (`caOf`). */
export interface LoadedCa {
  /** The DER of the CA certificate's subject: every certificate it signs names it as issuer, byte for byte. */
  subject: ArrayBuffer;
  /** The CA key's identifier (its subjectKeyIdentifier): the authorityKeyIdentifier of what it signs. */
  keyId: Buffer;
  pem: string;
  key: KeyObject;
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

/** Bytes as asn1js takes them (a copy: a Buffer may be a view into a larger pool). */
const bytesOf = (data: Uint8Array): ArrayBuffer => Uint8Array.from(data).buffer;

/**
 * A SEQUENCE of elements already DER-encoded (a key, a name, the signed part), written as they
 * are, never decoded and encoded again: a constructed value whose content is their bytes.
 */
function sequenceOf(elements: readonly (ArrayBuffer | Uint8Array)[]): ArrayBuffer {
  const sequence = new asn1.Primitive({
    idBlock: { tagClass: 1, tagNumber: 16 },
    valueHex: bytesOf(Buffer.concat(elements.map((e) => new Uint8Array(e)))),
  });
  // A SEQUENCE's tag is constructed; asn1js's Primitive clears the flag when built, so it is set after.
  sequence.idBlock.isConstructed = true;
  return sequence.toBER();
}

/** A context-specific [n] EXPLICIT wrapper. */
const explicit = (n: number, value: asn1.AsnType[]) => new asn1.Constructed({ idBlock: { tagClass: 3, tagNumber: n }, value });

/** AlgorithmIdentifier of ecdsa-with-SHA256: the OID alone, no parameters (RFC 5758 section 3.2). */
const signatureAlgorithm = () => new asn1.Sequence({ value: [new asn1.ObjectIdentifier({ value: ecdsaWithSha256 })] });

/** A printable value as PrintableString, anything else as UTF8String (RFC 5280 section 4.1.2.4). */
function directoryString(value: string): asn1.AsnType {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value) ? new asn1.PrintableString({ value }) : new asn1.Utf8String({ value });
}

/** A Name of one attribute per RDN: commonName, then organizationName when given. */
function nameOf(commonName: string, organization?: string): asn1.Sequence {
  const rdn = (type: string, value: string) =>
    new asn1.Set({ value: [new asn1.Sequence({ value: [new asn1.ObjectIdentifier({ value: type }), directoryString(value)] })] });
  return new asn1.Sequence({ value: [rdn('2.5.4.3', commonName), ...(organization !== undefined ? [rdn('2.5.4.10', organization)] : [])] });
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 section 4.1.2.5), whole seconds. */
function timeOf(date: Date): asn1.AsnType {
  const valueDate = new Date(Math.floor(date.getTime() / 1000) * 1000);
  return valueDate.getUTCFullYear() < 2050 ? new asn1.UTCTime({ valueDate }) : new asn1.GeneralizedTime({ valueDate });
}

/** A positive INTEGER from hexadecimal, in its shortest DER form. */
function serialOf(hex: string): asn1.Integer {
  let bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  let zeros = 0;
  while (zeros < bytes.length - 1 && bytes[zeros] === 0) zeros++;
  bytes = bytes.subarray(zeros);
  if ((bytes[0] ?? 0) >= 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return new asn1.Integer({ valueHex: bytesOf(bytes) });
}

/** An Extension: its OID, critical when it is, and its value's DER in an OCTET STRING. */
function extension(id: string, critical: boolean, value: asn1.AsnType): asn1.Sequence {
  return new asn1.Sequence({
    value: [
      new asn1.ObjectIdentifier({ value: id }),
      ...(critical ? [new asn1.Boolean({ value: true })] : []),
      new asn1.OctetString({ valueHex: value.toBER() }),
    ],
  });
}

/** keyUsage's bits (RFC 5280 section 4.2.1.3). */
const keyUsageBits = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

/** The keyUsage BIT STRING of the named bits, trailing zero bits left out (DER). */
function keyUsage(bits: readonly (keyof typeof keyUsageBits)[]): asn1.BitString {
  const highest = Math.max(...bits.map((b) => keyUsageBits[b]));
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const b of bits) {
    const bit = keyUsageBits[b];
    bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  }
  return new asn1.BitString({ valueHex: bytesOf(bytes), unusedBits: 7 - (highest & 7) });
}

/** A key's identifier: the SHA-1 of its subjectPublicKey bits (RFC 5280 section 4.2.1.2, method 1). */
function keyIdentifier(spki: Uint8Array): Buffer {
  const parsed = asn1.fromBER(bytesOf(spki));
  const key = (parsed.result as asn1.Sequence).valueBlock.value[1];
  if (parsed.offset === -1 || !(key instanceof asn1.BitString)) throw new Error('Not a SubjectPublicKeyInfo');
  return createHash('sha1').update(key.valueBlock.valueHexView).digest();
}

/** What a certificate holds, beside what every certificate here shares. */
interface ToBeSigned {
  serial: string;
  /** Names, DER. */
  issuer: ArrayBuffer;
  subject: ArrayBuffer;
  notBefore: Date;
  notAfter: Date;
  /** SubjectPublicKeyInfo, DER. */
  spki: Uint8Array;
  extensions: asn1.Sequence[];
}

/** The certificate (DER) of `tbs`, signed with the CA's key. */
function signCertificate(tbs: ToBeSigned, key: KeyObject): ArrayBuffer {
  const tbsCertificate = sequenceOf([
    explicit(0, [new asn1.Integer({ value: 2 })]).toBER(),
    serialOf(tbs.serial).toBER(),
    signatureAlgorithm().toBER(),
    tbs.issuer,
    new asn1.Sequence({ value: [timeOf(tbs.notBefore), timeOf(tbs.notAfter)] }).toBER(),
    tbs.subject,
    tbs.spki,
    explicit(3, [new asn1.Sequence({ value: tbs.extensions })]).toBER(),
  ]);
  const signature = sign('sha256', new Uint8Array(tbsCertificate), { key, dsaEncoding: 'der' });
  return sequenceOf([tbsCertificate, signatureAlgorithm().toBER(), new asn1.BitString({ valueHex: bytesOf(signature) }).toBER()]);
}

/** A new CA: a fresh key and its self-signed certificate, its name unique to it. */
function makeCa(now: Date): SandboxCa {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: caCurve });
  const id = randomBytes(4).toString('hex').toUpperCase();
  const notBefore = new Date(now);
  notBefore.setUTCFullYear(notBefore.getUTCFullYear() - caYearsBack);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + caYearsAhead);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = nameOf(`Registrar Sandbox CA ${id}`, 'Registrar sandbox (not trusted)').toBER();
  const certificate = signCertificate(
    {
      serial: randomBytes(16).toString('hex'),
      issuer: name,
      subject: name,
      notBefore,
      notAfter,
      spki,
      extensions: [
        // cA, pathLenConstraint 0: it signs end-entity certificates only.
        extension('2.5.29.19', true, new asn1.Sequence({ value: [new asn1.Boolean({ value: true }), new asn1.Integer({ value: 0 })] })),
        extension('2.5.29.15', true, keyUsage(['keyCertSign', 'cRLSign'])),
        extension('2.5.29.14', false, new asn1.OctetString({ valueHex: bytesOf(keyIdentifier(spki)) })),
      ],
    },
    privateKey,
  );
  return {
    certificate: pemOf('CERTIFICATE', certificate),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    createdDate: toWireTime(now),
  };
}

/** The CA certificate's subject (DER, as written) and its key (DER SubjectPublicKeyInfo). */
function caParts(pem: string): { subject: ArrayBuffer; spki: ArrayBuffer } {
  const parsed = asn1.fromBER(bytesOf(derOf(pem)));
  const tbs = (parsed.result as asn1.Sequence).valueBlock.value[0];
  const fields = tbs instanceof asn1.Sequence ? tbs.valueBlock.value : [];
  // version [0], serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
  const [subject, spki] = [fields[5], fields[6]];
  if (parsed.offset === -1 || !subject || !spki) throw new Error('The sandbox CA certificate is malformed');
  return { subject: subject.valueBeforeDecodeView.slice().buffer, spki: spki.valueBeforeDecodeView.slice().buffer };
}

/** A kept CA, ready to sign (any CA kept so far: its subject and key are read from its certificate as written). */
export function caOf(kept: SandboxCa): LoadedCa {
  const { subject, spki } = caParts(kept.certificate);
  return { subject, keyId: keyIdentifier(new Uint8Array(spki)), pem: kept.certificate, key: createPrivateKey(kept.privateKey) };
}

/** The table's CA: read, else made and kept (the first writer wins). */
async function loadCa(): Promise<LoadedCa> {
  return caOf((await getSandboxCa()) ?? (await claimSandboxCa(makeCa(new Date()))));
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
  return signedBy(await sandboxCa(), request);
}

/** A certificate for the request's names and key, signed by `ca`. */
export function signedBy(ca: LoadedCa, request: SandboxCertificateRequest): SandboxSigned {
  const key = csrPublicKey(request.csr);
  const spki = key.export({ type: 'spki', format: 'der' });
  const rsa = key.asymmetricKeyType?.startsWith('rsa') === true;
  const dnsNames = [...new Set(request.names)].map(
    // dNSName: [2] IMPLICIT IA5String
    (name) => new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 }, valueHex: bytesOf(Buffer.from(name, 'ascii')) }),
  );
  const certificate = signCertificate(
    {
      serial: serialHex(request.serialNumber),
      issuer: ca.subject,
      subject: nameOf(request.commonName, request.organization || undefined).toBER(),
      notBefore: new Date(request.startDate),
      notAfter: new Date(request.expiryDate),
      spki,
      extensions: [
        // Not a CA (cA FALSE is the default, so the sequence is empty).
        extension('2.5.29.19', true, new asn1.Sequence({ value: [] })),
        extension('2.5.29.15', true, keyUsage(rsa ? ['digitalSignature', 'keyEncipherment'] : ['digitalSignature'])),
        // serverAuth, clientAuth
        extension(
          '2.5.29.37',
          false,
          new asn1.Sequence({
            value: [new asn1.ObjectIdentifier({ value: '1.3.6.1.5.5.7.3.1' }), new asn1.ObjectIdentifier({ value: '1.3.6.1.5.5.7.3.2' })],
          }),
        ),
        extension('2.5.29.17', false, new asn1.Sequence({ value: dnsNames })),
        extension('2.5.29.14', false, new asn1.OctetString({ valueHex: bytesOf(keyIdentifier(spki)) })),
        // keyIdentifier: [0] IMPLICIT OCTET STRING
        extension(
          '2.5.29.35',
          false,
          new asn1.Sequence({ value: [new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: bytesOf(ca.keyId) })] }),
        ),
      ],
    },
    ca.key,
  );
  return { certificate: pemOf('CERTIFICATE', certificate), chain: [ca.pem] };
}

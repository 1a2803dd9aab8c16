import * as asn1 from 'asn1js';
import { zipSync } from 'fflate';

/**
 * The certificate files that need an ASN.1 writer or the ZIP writer (download.ts): loaded with
 * `import()` only when a `PKCS7` or `ZIP` file is asked for, so the other formats, and the
 * function's cold start, do not load them (docs/performance.md).
 */

function pemLines(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/** The DER of a PEM block. */
function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) [^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/** CMS content types (RFC 5652 sections 4 and 5). */
const idData = '1.2.840.113549.1.7.1';
const idSignedData = '1.2.840.113549.1.7.2';

/** A context-specific [n] wrapper around `value` (EXPLICIT tagging). */
function explicit(n: number, value: asn1.AsnType[]): asn1.Constructed {
  return new asn1.Constructed({ idBlock: { tagClass: 3, tagNumber: n }, value });
}

/**
 * The certificate and its chain as PKCS#7 certs-only, PEM: a SignedData (RFC 5652 section 5.1)
 * with no digest algorithms and no signers, an empty `data` content, and the certificates in
 * order. The certificates go in as the bytes stored, never decoded and encoded again: the
 * `[0] IMPLICIT SET OF Certificate` is written as a constructed value whose content is their DER.
 */
export function pkcs7Of(pems: readonly string[]): string {
  const certificates = new asn1.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: Buffer.concat(pems.map(derOf)) });
  // A SET's tag is constructed; asn1js's Primitive clears the flag when built, so it is set after.
  certificates.idBlock.isConstructed = true;
  const signedData = new asn1.Sequence({
    value: [
      new asn1.Integer({ value: 1 }),
      new asn1.Set({ value: [] }),
      new asn1.Sequence({ value: [new asn1.ObjectIdentifier({ value: idData }), explicit(0, [new asn1.OctetString()])] }),
      certificates,
      new asn1.Set({ value: [] }),
    ],
  });
  const contentInfo = new asn1.Sequence({ value: [new asn1.ObjectIdentifier({ value: idSignedData }), explicit(0, [signedData])] });
  return pemLines('PKCS7', contentInfo.toBER());
}

/** The files in one ZIP (deflate level 6), every entry dated `mtime`. */
export function zipOf(files: Record<string, Uint8Array>, mtime: Date): Uint8Array {
  return zipSync(files, { level: 6, mtime });
}

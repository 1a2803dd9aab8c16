import {
  CertificateChoices,
  CertificateSet,
  ContentInfo,
  EncapsulatedContent,
  id_data,
  id_signedData,
  SignedData,
} from '@peculiar/asn1-cms';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { zipSync } from 'fflate';

/**
 * The certificate files that need the ASN.1 schemas or the ZIP writer (download.ts): loaded with
 * `import()` only when a `PKCS7` or `ZIP` file is asked for, so the other formats, and the
 * function's cold start, do not evaluate the schemas' decorators or fflate's tables
 * (docs/performance.md).
 */

function pemLines(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/** The DER of a PEM block. */
function derOf(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) [^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

/**
 * The certificate and its chain as PKCS#7 certs-only (a SignedData with no signers), PEM: built with
 * the CMS and X.509 ASN.1 schemas alone (the structure @peculiar/x509 writes, without its
 * dependency-injection and reflection stack, which weighed on this GET function's cold start).
 */
export function pkcs7Of(pems: readonly string[]): string {
  const signedData = new SignedData();
  signedData.version = 1;
  signedData.encapContentInfo.eContentType = id_data;
  signedData.encapContentInfo.eContent = new EncapsulatedContent({ single: new OctetString() });
  signedData.certificates = new CertificateSet(
    pems.map((pem) => new CertificateChoices({ certificate: AsnConvert.parse(derOf(pem), Certificate) })),
  );
  const info = new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signedData) });
  return pemLines('PKCS7', AsnConvert.serialize(info));
}

/** The files in one ZIP (deflate level 6), every entry dated `mtime`. */
export function zipOf(files: Record<string, Uint8Array>, mtime: Date): Uint8Array {
  return zipSync(files, { level: 6, mtime });
}

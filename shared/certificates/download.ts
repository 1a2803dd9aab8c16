import { ObjectStatusProhibitsOperation } from '../errors.ts';
import type { CertificateRecord } from '../model/certificate.ts';
import { ownCertificate } from './certificate-info.ts';
import type { DownloadFormat } from './certificate-view.ts';

/**
 * A certificate's files (`GET /v2/ssl/certificates/{certificateId}/download?format=...`), made from
 * what the authority delivered and the CSR as received:
 *
 * - `CRT`: the certificate (PEM);
 * - `CA`: the certificate of its issuer (PEM), the first certificate of the chain;
 * - `CA_BUNDLE`: every issuer certificate the authority delivered (PEM, issuer first);
 * - `PKCS7`: the certificate and its chain as PKCS#7 (RFC 2315 certs-only SignedData, PEM `PKCS7`);
 * - `CSR`: the CSR the certificate was requested with (PEM);
 * - `ZIP` (the default): the CRT, the CA bundle, the PKCS#7 and the CSR files in one ZIP.
 *
 * File names follow the common name (`www_demo-shop_nl.crt`, `STAR_demo-shop_nl.crt` for a wildcard).
 * Only the owner reads them. The sandbox authority delivers files too, signed by its CA
 * (sandbox-ca.ts); a certificate loaded without a file (a dataset's, with no CSR to sign for)
 * offers its CSR only, if it has one.
 */

/** A file to download. */
export interface CertificateFile {
  fileName: string;
  bytes: Uint8Array;
}

/** The base of the file names: the common name, `*` as `STAR`, dots as underscores. */
function baseName(commonName: string): string {
  return commonName.replace(/^\*/, 'STAR').replaceAll('.', '_');
}

/** The UTF-8 bytes of a text file. */
function utf8(content: string): Uint8Array {
  return new TextEncoder().encode(content);
}

/** The PKCS#7 and ZIP writers, loaded on first use (pkcs7.ts). */
function writers() {
  return import('./pkcs7.ts');
}

/** One PEM block per line ending, joined. */
function joined(pems: readonly string[]): string {
  return pems.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}

/** The refusal for a certificate that has no such file. */
function noFile(record: CertificateRecord, what: string): ObjectStatusProhibitsOperation {
  return new ObjectStatusProhibitsOperation(`Certificate ${record.id} has no ${what} to download.`);
}

/** The file of one format for a certificate record. */
export async function certificateFile(record: CertificateRecord, format: DownloadFormat): Promise<CertificateFile> {
  const base = baseName(record.commonName);
  const text = (fileName: string, content: string): CertificateFile => ({ fileName, bytes: utf8(content) });
  if (format === 'CSR') {
    if (record.csr === undefined) throw noFile(record, 'CSR');
    return text(`${base}.csr`, joined([record.csr]));
  }
  const certificate = record.certificate;
  if (certificate === undefined) {
    throw new ObjectStatusProhibitsOperation(`Certificate ${record.id} has no certificate file to download: its authority delivered none.`);
  }
  const chain = record.chain ?? [];
  switch (format) {
    case 'CRT':
      return text(`${base}.crt`, joined([certificate]));
    case 'CA': {
      const issuer = chain[0];
      if (issuer === undefined) throw noFile(record, 'issuer certificate');
      return text(`${base}.ca.crt`, joined([issuer]));
    }
    case 'CA_BUNDLE':
      if (chain.length === 0) throw noFile(record, 'issuer certificate');
      return text(`${base}.ca-bundle`, joined(chain));
    case 'PKCS7':
      return text(`${base}.p7b`, (await writers()).pkcs7Of([certificate, ...chain]));
    case 'ZIP': {
      const { pkcs7Of, zipOf } = await writers();
      const files: Record<string, Uint8Array> = { [`${base}.crt`]: utf8(joined([certificate])) };
      if (chain.length > 0) files[`${base}.ca-bundle`] = utf8(joined(chain));
      files[`${base}.p7b`] = utf8(pkcs7Of([certificate, ...chain]));
      if (record.csr !== undefined) files[`${base}.csr`] = utf8(joined([record.csr]));
      return { fileName: `${base}.zip`, bytes: zipOf(files, new Date(record.startDate)) };
    }
  }
}

/** The caller's certificate in one format (404 for another customer's, as for a missing one). */
export async function downloadCertificate(customer: string, id: number, format: DownloadFormat): Promise<CertificateFile> {
  return certificateFile(await ownCertificate(customer, id), format);
}

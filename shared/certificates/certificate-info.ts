import { X509Certificate } from 'node:crypto';
import { getCertificateOf } from '../db/repositories/certificates.ts';
import { ObjectDoesNotExist } from '../errors.ts';
import type { CertificateProduct, CertificateRecord } from '../model/certificate.ts';
import { catalogueProduct } from './catalogue.ts';
import type { CertificateView } from './certificate-view.ts';
import { validationTypeNames } from './validation-type.ts';

/**
 * One certificate of the caller (`GET /v2/ssl/certificates/{certificateId}`), in the shape the
 * official SDKs read. Another customer's certificate answers like a missing one: one owner-filtered
 * read before anything else, and the product (cached configuration) only for the caller's own.
 */

/** The caller's certificate record, or 404 ObjectDoesNotExist (missing, or another customer's). */
export async function ownCertificate(customer: string, id: number): Promise<CertificateRecord> {
  const certificate = await getCertificateOf(customer, id);
  if (!certificate) throw new ObjectDoesNotExist('Certificate', String(id));
  return certificate;
}

/** The key's algorithm and size from the record's `keyType` (`RSA-2048`, `EC-P-256`). */
function publicKeyOf(keyType: string | undefined): Pick<CertificateView, 'publicKeyAlgorithm' | 'publicKeySize'> {
  const rsa = /^RSA-(\d{3,5})$/.exec(keyType ?? '');
  if (rsa) return { publicKeyAlgorithm: 'RSA', publicKeySize: Number(rsa[1]) };
  const ec = /^EC-P-(\d{3})$/.exec(keyType ?? '');
  if (ec) return { publicKeyAlgorithm: 'ECDSA', publicKeySize: Number(ec[1]) };
  return {};
}

/** SHA-256 of a PEM certificate's DER, upper-case hex without separators. */
export function fingerprintOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replaceAll(':', '');
}

/** The certificate as the API answers it. */
export async function certificateDetails(customer: string, id: number): Promise<CertificateView> {
  const record = await ownCertificate(customer, id);
  return certificateViewOf(record, await productOf(record));
}

/** The catalogue product a certificate names (cached); one the catalogue lacks is an unexpected failure. */
export async function productOf(record: CertificateRecord): Promise<CertificateProduct> {
  const product = await catalogueProduct(record.product);
  if (!product) throw new Error(`Certificate ${record.id} names unknown product '${record.product}'`);
  return product;
}

/** A certificate record as the API answers it (one certificate, or an entity of the listing), with its product. */
export function certificateViewOf(record: CertificateRecord, product: CertificateProduct): CertificateView {
  return {
    id: record.id,
    ...(record.processId !== undefined ? { process: record.processId } : {}),
    product: record.product,
    validationType: validationTypeNames[product.validationType],
    certificateType: product.certificateType,
    domainName: record.commonName,
    ...(record.organization !== undefined ? { organization: record.organization } : {}),
    startDate: record.startDate,
    expiryDate: record.expiryDate,
    ...(record.subscriptionEndDate !== undefined ? { subscriptionEndDate: record.subscriptionEndDate } : {}),
    san: record.san,
    status: record.status,
    ...publicKeyOf(record.keyType),
    serialNumber: record.serialNumber,
    ...(record.csr !== undefined ? { csr: record.csr } : {}),
    ...(record.certificate !== undefined ? { certificate: record.certificate, fingerprint: fingerprintOf(record.certificate) } : {}),
    ...(record.renewedBy !== undefined ? { renewedBy: record.renewedBy } : {}),
  };
}

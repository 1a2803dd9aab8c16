import * as v from 'valibot';
import { CertificateAuthority, CertificateProduct, CertificateRecord } from '../../model/certificate.ts';
import { batchGetAll, getItem, getItemOf, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { nextId } from './counters.ts';

/** Certificates, certificate products and authorities (shared/model/certificate.ts has the records). */

export const certificateEntity = 'certificate';
const productEntity = 'certificateProduct';
const authorityEntity = 'certificateAuthority';
export const openRequestEntity = 'openCertificateRequest';

/** The item a certificate is stored as (for use inside a caller's transaction). */
export function certificateItem(record: CertificateRecord): Record<string, unknown> {
  return toItem(keys.certificate(record.id, record.customer), certificateEntity, record);
}

export function putCertificate(record: CertificateRecord, ifAbsent = false): Promise<boolean> {
  return putItem(certificateItem(record), ifAbsent);
}

/** A certificate of this customer; another customer's reads as absent, in the same work (items.ts getItemOf). */
export function getCertificateOf(customer: string, id: number): Promise<CertificateRecord | undefined> {
  return getItemOf(customer, keys.certificateById(id), CertificateRecord, certificateEntity);
}

/** The next certificate id (atomic; see counters.ts). */
export function allocateCertificateId(): Promise<number> {
  return nextId('certificate');
}

export async function listCertificates(customer: string): Promise<CertificateRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.certificatesOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => parseItem(CertificateRecord, certificateEntity, item));
}

export function putCertificateProduct(record: CertificateProduct, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.certificateProduct(record.product), productEntity, record), ifAbsent);
}

export function getCertificateProduct(product: string): Promise<CertificateProduct | undefined> {
  return getItem(keys.certificateProduct(product), CertificateProduct, productEntity);
}

/** The whole product catalogue (one Query). */
export async function listCertificateProducts(): Promise<CertificateProduct[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.certificateProducts().pk },
  });
  return items.map((item) => parseItem(CertificateProduct, productEntity, item));
}

export function putCertificateAuthority(record: CertificateAuthority, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.certificateAuthority(record.name), authorityEntity, record), ifAbsent);
}

export function getCertificateAuthority(name: string): Promise<CertificateAuthority | undefined> {
  return getItem(keys.certificateAuthority(name), CertificateAuthority, authorityEntity);
}

/** Several authorities by name in one BatchGet. */
export async function getCertificateAuthorities(names: string[]): Promise<Map<string, CertificateAuthority>> {
  const unique = [...new Set(names)];
  const items = unique.length ? await batchGetAll(unique.map((n) => keys.certificateAuthority(n))) : [];
  const out = new Map<string, CertificateAuthority>();
  for (const item of items) {
    const authority = parseItem(CertificateAuthority, authorityEntity, item);
    out.set(authority.name, authority);
  }
  return out;
}

const OpenRequest = v.object({ processId: v.pipe(v.number(), v.integer(), v.minValue(1)) });

/** The marker item listing a certificate process as still validating. */
export function openRequestItem(processId: number): Record<string, unknown> {
  return toItem(keys.openCertificateRequest(processId), openRequestEntity, { processId });
}

/** Ids of the certificate processes still validating, oldest first (one Query). */
export async function listOpenRequests(): Promise<number[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.openCertificateRequests().pk },
  });
  return items.map((item) => parseItem(OpenRequest, openRequestEntity, item).processId);
}

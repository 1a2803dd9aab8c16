import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { CertificateAuthority, CertificateProduct, CertificateRecord, CertificateStatus } from '../../model/certificate.ts';
import { db } from '../client.ts';
import { batchGetAll, getItem, getItemOf, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';
import { tableName } from '../table.ts';
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

/**
 * The listing of a customer's certificates (`GET /v2/ssl/certificates`): gsi1 in id order (the
 * whole items), its keys-only twin gsi1keys (skipping and counting), and gsi1list (the summaries:
 * id and status, about 100 bytes an entry). The partition names the customer, so another
 * customer's certificate is never read.
 */
const certificatePartition = (customer: string) => ({
  KeyConditionExpression: 'gsi1pk = :pk',
  ExpressionAttributeValues: { ':pk': keys.certificatesOfCustomer(customer).gsi1pk },
});

/** Where a certificate listing goes on from (the index's key). */
export type CertificateCursor = Record<string, unknown>;
interface PageOptions {
  limit: number;
  ascending: boolean;
  start?: CertificateCursor;
}

/** One page of a customer's certificate entries in id order on `index`: one Query of at most `limit` items. */
async function queryCertificates(customer: string, index: 'gsi1' | 'gsi1list', options: PageOptions) {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index,
      ...certificatePartition(customer),
      ScanIndexForward: options.ascending,
      Limit: options.limit,
      ...(options.start ? { ExclusiveStartKey: options.start } : {}),
    }),
  );
  const items = out.Items ?? [];
  return { items, read: items.length, ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** One page of a customer's certificates in id order: one Query of at most `limit` items. */
export async function readCertificatePage(
  customer: string,
  options: PageOptions,
): Promise<{ certificates: CertificateRecord[]; read: number; next?: CertificateCursor }> {
  const { items, ...page } = await queryCertificates(customer, 'gsi1', options);
  return { certificates: items.map((item) => parseItem(CertificateRecord, certificateEntity, item)), ...page };
}

/** What a certificate listing checks status and id filters on (gsi1list). */
export const CertificateSummary = v.object({ id: v.number(), status: CertificateStatus });
export type CertificateSummary = v.InferOutput<typeof CertificateSummary>;

/** One page of a customer's certificate summaries in id order (gsi1list: id and status only). */
export async function readCertificateSummaries(
  customer: string,
  options: PageOptions,
): Promise<{ summaries: CertificateSummary[]; read: number; next?: CertificateCursor }> {
  const { items, ...page } = await queryCertificates(customer, 'gsi1list', options);
  return { summaries: items.map((item) => v.parse(CertificateSummary, item)), ...page };
}

/** Certificates of a customer by id, in the order given, in BatchGets (one gone, or another customer's, is left out). */
export async function readCertificatesById(customer: string, ids: readonly number[]): Promise<CertificateRecord[]> {
  const unique = [...new Set(ids)];
  const items = unique.length > 0 ? await batchGetAll(unique.map((id) => keys.certificateById(id))) : [];
  const byId = new Map(
    items
      .map((item) => parseItem(CertificateRecord, certificateEntity, item))
      .filter((c) => c.customer === customer)
      .map((c) => [c.id, c]),
  );
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id) as CertificateRecord] : []));
}

/** Skips `count` of a customer's certificates over keys only (gsi1keys): where the page after them starts, undefined when nothing is left. */
export async function skipCertificates(customer: string, count: number, ascending: boolean): Promise<CertificateCursor | undefined> {
  let read = 0;
  let start: CertificateCursor | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1keys',
        ...certificatePartition(customer),
        Select: 'COUNT',
        ScanIndexForward: ascending,
        Limit: count - read,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    read += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && read < count);
  return read === count ? start : undefined;
}

/** How many certificates a customer has, counting keys only (gsi1keys), at most `max` (complete: false past it). */
export async function countCertificates(customer: string, max: number): Promise<{ count: number; complete: boolean }> {
  let count = 0;
  let start: CertificateCursor | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1keys',
        ...certificatePartition(customer),
        Select: 'COUNT',
        Limit: max + 1 - count,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start && count <= max);
  return { count, complete: count <= max };
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

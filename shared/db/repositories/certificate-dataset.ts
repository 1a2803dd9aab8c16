import * as v from 'valibot';
import { CertificateRecord } from '../../model/certificate.ts';
import { ProcessRecord } from '../../model/process.ts';
import { toWireTime } from '../../time.ts';
import { putItem } from '../items.ts';
import { openRequestItem } from './certificates.ts';
import { putProcess } from './processes.ts';

/**
 * Certificates and certificate processes in a dataset (the demo data, infra/dataset.ts). Apart
 * from certificates.ts, so that no function bundles the dataset schemas.
 */

/** A dataset time: a wire time, or `now+Nd` / `now-Nd` resolved when the dataset is loaded. */
export const DatasetTime = v.union([
  v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)),
  v.pipe(v.string(), v.regex(/^now[+-]\d{1,5}d$/, 'must be a wire time or now+Nd / now-Nd')),
]);

/**
 * A certificate in a dataset: dates may be relative, so demo certificates stay "expiring within
 * 30 days" whenever the demo data is loaded.
 */
export const DatasetCertificate = v.object({
  ...CertificateRecord.entries,
  startDate: DatasetTime,
  expiryDate: DatasetTime,
  createdDate: DatasetTime,
  updatedDate: DatasetTime,
});
export type DatasetCertificate = v.InferOutput<typeof DatasetCertificate>;

/** Resolves a dataset time against `at`. */
export function resolveDatasetTime(value: string, at: Date): string {
  const match = /^now([+-])(\d+)d$/.exec(value);
  if (!match) return value;
  const days = Number(match[2]) * (match[1] === '-' ? -1 : 1);
  return toWireTime(at.getTime() + days * 86_400_000);
}

/** A dataset certificate as a record, its relative dates resolved against `at`. */
export function resolveDatasetCertificate(c: DatasetCertificate, at: Date): CertificateRecord {
  return {
    ...c,
    startDate: resolveDatasetTime(c.startDate, at),
    expiryDate: resolveDatasetTime(c.expiryDate, at),
    createdDate: resolveDatasetTime(c.createdDate, at),
    updatedDate: resolveDatasetTime(c.updatedDate, at),
  };
}

/**
 * A process in a dataset: its dates may be relative like a certificate's, so that the process
 * that issued a demo certificate stays before it whenever the demo data is loaded.
 */
export const DatasetProcess = v.object({ ...ProcessRecord.entries, createdDate: DatasetTime, updatedDate: DatasetTime });
export type DatasetProcess = v.InferOutput<typeof DatasetProcess>;

/** A dataset process as a record, its relative dates resolved against `at`. */
export function resolveDatasetProcess(p: DatasetProcess, at: Date): ProcessRecord {
  return { ...p, createdDate: resolveDatasetTime(p.createdDate, at), updatedDate: resolveDatasetTime(p.updatedDate, at) };
}

/** The statuses the service gives a certificate request: its list filters rely on it (a running request is the only open one). */
const certificateStatuses: readonly ProcessRecord['status'][] = ['RUNNING', 'COMPLETED', 'CANCELLED', 'FAILED'];

/** Loads a dataset process; a certificate request still validating also gets its open-request marker. */
export async function putDatasetProcess(record: ProcessRecord, ifAbsent = false): Promise<boolean> {
  if (record.type === 'certificate' && !certificateStatuses.includes(record.status)) {
    throw new Error(`Certificate process ${record.id} is ${record.status}; a certificate process is ${certificateStatuses.join(', ')}`);
  }
  const written = await putProcess(record, ifAbsent);
  if (written && record.type === 'certificate' && record.status === 'RUNNING') await putItem(openRequestItem(record.id));
  return written;
}

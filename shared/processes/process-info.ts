import * as v from 'valibot';
import { catalogueAuthority } from '../certificates/catalogue.ts';
import { acmeInfo, certificateInfo } from '../certificates/info.ts';
import type { AcmeInfo, CertificateInfo } from '../certificates/info-view.ts';
import { getProcess } from '../db/repositories/processes.ts';
import { ObjectDoesNotExist, ValidationError } from '../errors.ts';
import { AcmeProcessState } from '../model/acme.ts';
import { CertificateProcessState } from '../model/certificate-process.ts';
import { isTransferProcess, type TransferResult, transferResultOf } from '../model/transfer.ts';
import { now } from '../time.ts';

/**
 * Process info (spec 2.9, contract 3.3): the shape follows the process's type. Certificate and
 * acme processes answer the spec's shapes (plus nextAction), domain transfers their transfer
 * result; any other type has no info (400). One GetItem on a warm function (the authority is
 * configuration, cached: shared/certificates/catalogue.ts).
 */
export async function processInfo(id: number, customer: string): Promise<CertificateInfo | AcmeInfo | TransferResult> {
  const process = await getProcess(id, customer);
  if (!process) throw new ObjectDoesNotExist('Process', String(id));
  if (process.type === 'certificate' || process.type === 'acme') {
    const authorityName = v.parse(v.object({ authority: v.string() }), process.details).authority;
    const authority = await catalogueAuthority(authorityName);
    if (!authority) throw new Error(`Process ${id} names unknown certificate authority '${authorityName}'`);
    return process.type === 'certificate'
      ? certificateInfo(process, v.parse(CertificateProcessState, process.details), authority, now())
      : acmeInfo(process, v.parse(AcmeProcessState, process.details), authority, now());
  }
  if (isTransferProcess(process)) return transferResultOf(process);
  throw new ValidationError(`There is no info for processes of type ${process.type} (action ${process.action}).`);
}

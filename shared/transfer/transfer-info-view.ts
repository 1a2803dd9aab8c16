import * as v from 'valibot';
import { TransferResult, TransferStatus } from '../model/transfer.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * The transfer info of `GET /v2/domains/{domainName}/transfer/{processId}` (the SDKs' TransferInfo
 * and DomainTransferStatus models), as a schema: the OpenAPI document and the answer checks use
 * it, the use case takes its type.
 */

/** One step of a transfer's history. */
export const TransferLogEntry = v.strictObject({
  date: WireTime,
  status: TransferStatus,
  message: v.string(),
});

/** The transfer result of spec 2.6, the losing registrar and the log of every status the transfer went through. */
export const TransferInfo = v.strictObject({
  ...TransferResult.entries,
  registrar: v.optional(v.pipe(v.string(), v.description('The registrar the domain leaves, as the registry named it.'))),
  log: v.array(TransferLogEntry),
});
export type TransferInfo = v.InferOutput<typeof TransferInfo>;

/** A pending transfer as both transfer-info routes answer it: the example of their API descriptions. */
export const pendingTransferExample: TransferInfo = {
  domainName: 'transfer-wait.com',
  status: 'pending',
  requestedDate: '2026-11-21T21:03:29Z',
  actionDate: '2026-11-26T21:03:29Z',
  type: 'IN',
  processId: 1001,
  registrar: 'Example Registrar, Inc.',
  log: [{ date: '2026-11-21T21:03:29Z', status: 'pending', message: 'Pending at the registry.' }],
};

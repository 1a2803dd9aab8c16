import { endpoint } from '../../shared/http/pipeline.ts';
import { transferInfo } from '../../shared/transfer/transfer-info.ts';
import { TransferInfoRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/transfer/{processId}: where a transfer of the caller stands, and its log. */
export const handler = endpoint({ route: 'transfer-info', request: TransferInfoRequest }, ({ input, principal }) =>
  transferInfo(input.path.domainName, input.path.processId, principal.customer),
);

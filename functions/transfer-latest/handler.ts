import { endpoint } from '../../shared/http/pipeline.ts';
import { latestTransferInfo } from '../../shared/transfer/transfer-info.ts';
import { LatestTransferRequest } from './schema.ts';

/** GET /v2/domains/{domainName}/transfer: the caller's latest transfer of the name, and its log. */
export const handler = endpoint({ route: 'transfer-latest', request: LatestTransferRequest }, ({ input, principal }) =>
  latestTransferInfo(input.path.domainName, principal.customer),
);

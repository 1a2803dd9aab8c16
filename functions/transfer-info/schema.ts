import * as v from 'valibot';
import { DomainName, PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/domains/{domainName}/transfer/{processId}: the domain and the transfer's process id. */
export const TransferInfoRequest = v.object({
  path: v.object({ domainName: DomainName, processId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

import * as v from 'valibot';
import { DomainName } from '../../shared/schemas/primitives.ts';

/** GET /v2/domains/{domainName}/transfer: the domain name, nothing else. */
export const LatestTransferRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({}),
  body: v.undefined(),
});

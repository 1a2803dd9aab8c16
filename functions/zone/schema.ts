import * as v from 'valibot';
import { DomainName } from '../../shared/schemas/primitives.ts';

/** GET /v2/domains/{domainName}/zone: the domain name in the path, nothing else. */
export const ZoneRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({}),
  body: v.undefined(),
});

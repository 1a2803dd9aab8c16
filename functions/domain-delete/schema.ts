import * as v from 'valibot';
import { DomainName } from '../../shared/schemas/primitives.ts';

/** DELETE /v2/domains/{domainName} (a body is not read). */
export const DomainDeleteRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({}),
  body: v.undefined(),
});

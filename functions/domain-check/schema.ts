import * as v from 'valibot';
import { DomainName, QueryBoolean } from '../../shared/schemas/primitives.ts';

/** GET /v2/domains/{domainName}/check[?languageCode=..&renewPrice=true]. */
export const DomainCheckRequest = v.object({
  path: v.object({ domainName: DomainName }),
  query: v.object({
    languageCode: v.optional(
      v.pipe(v.string(), v.minLength(1, 'must be 1 to 10 characters long'), v.maxLength(10, 'must be 1 to 10 characters long')),
    ),
    renewPrice: v.optional(QueryBoolean),
  }),
  body: v.undefined(),
});

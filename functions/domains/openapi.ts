import { DomainPage } from '../../shared/domains/domain-view.ts';
import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { demoSecure } from '../domain/openapi.ts';
import { DomainListRequest } from './schema.ts';

/** GET /v2/domains in the OpenAPI document. */
export const docs: OperationDocs = {
  request: DomainListRequest,
  description: [
    "The caller's domains, by name: `{entities, pagination: {limit, offset, total}}`; `total` is counted by default (`total=false` leaves it out).",
    'Paging: `limit` (default 10, at most 100; `0` answers only the count) and `offset` (at most 10000). `order`: `domainName` (default) or `expiryDate`, `-` for descending; with an `expiryDate` range and no `order`, soonest expiry first. `fields` limits what each entity carries. `export=true` answers every match in one (compressed) answer, with `domainName` unless `fields` names others (WHMCS: `fields=domainName,expiryDate`); an export of more than 20000 domains answers 400 ValidationError saying how to narrow it.',
    'Filters, as the SDKs send them: `field=value` or `field:matcher=value`; a parameter may repeat, and every filter applies. Fields: `domainName`, `registrant`, `admin`, `billing`, `tech` (contact handles), `privacyProtect`, `autoRenew` (`true`/`false`), `autoRenewPeriod` (months), `status` (a domain matches `status=X` when X is one of its statuses; `ne` when it is not; `in` when one of them is), `expiryDate`, `createdDate`. Matchers: `ne`, `in` (comma-separated values), `like` (`*` for any run of characters, case-insensitive), `gt`, `gte`, `lt`, `lte` (dates as a day `yyyy-MM-dd` or a time), `null`, `not_null`. `q` finds domains whose name or registrant contains the text.',
    "Cost: the table is never scanned. An `expiryDate` range (ordered by expiry) reads the expiry index over exactly its range, an exact `status` that status's listing, and a page of them reads about `limit` domains however large the account; `total` is then counted over keys only. Other filters are checked on the domains read in order, at most 20000; a broader request answers 400 ValidationError saying how to narrow it. An unknown parameter, filter field or matcher: 400 ConstraintViolationException naming it.",
  ].join('\n\n'),
  tags: ['Domains'],
  responses: {
    '200': {
      description: 'One page of domains.',
      content: {
        'application/json': {
          json: DomainPage,
          examples: {
            expiringSoon: { entities: [demoSecure], pagination: { limit: 10, offset: 0, total: 1 } },
            expirySync: {
              entities: [{ domainName: 'demo-secure.com', expiryDate: '2027-06-12T09:00:00Z' }],
              pagination: { limit: 1, offset: 0, total: 1 },
            },
          },
        },
      },
    },
  },
  errors: ['ConstraintViolationException', 'ValidationError'],
  examples: { query: { 'expiryDate:lt': ['2027-07-01'] } },
  components: { DomainPage },
};

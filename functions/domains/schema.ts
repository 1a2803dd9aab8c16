import * as v from 'valibot';
import { DomainListQuery } from '../../shared/domains/list-request.ts';

/** GET /v2/domains: paging, order, fields, total and filters, each parameter possibly repeated. */
export const DomainListRequest = v.object({
  path: v.object({}),
  query: DomainListQuery,
  body: v.undefined(),
});

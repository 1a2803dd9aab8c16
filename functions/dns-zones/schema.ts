import * as v from 'valibot';
import { ZoneListQuery } from '../../shared/dns/list-request.ts';

/** GET /v2/dns/zones: paging, order, fields, total, q and filters, each parameter possibly repeated. */
export const ZoneListRequest = v.object({
  path: v.object({}),
  query: ZoneListQuery,
  body: v.undefined(),
});

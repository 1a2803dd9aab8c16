import * as v from 'valibot';
import { ProcessListQuery } from '../../shared/processes/list-request.ts';

/** GET /v2/processes: paging, order, fields, total and filters, each parameter possibly repeated. */
export const ProcessListRequest = v.object({
  path: v.object({}),
  query: ProcessListQuery,
  body: v.undefined(),
});

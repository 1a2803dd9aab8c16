import * as v from 'valibot';
import { ProcessFieldsQuery } from '../../shared/processes/list-request.ts';
import { PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/processes/{processId}[?fields=...]: the process id, and the fields to answer. */
export const ProcessRequest = v.object({
  path: v.object({ processId: PathId }),
  query: ProcessFieldsQuery,
  body: v.undefined(),
});

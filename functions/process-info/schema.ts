import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** GET /v2/processes/{processId}/info: the process id in the path, nothing else. */
export const ProcessInfoRequest = v.object({
  path: v.object({ processId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

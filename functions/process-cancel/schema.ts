import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** DELETE /v2/processes/{processId}: the process id, nothing else (a body is not read). */
export const ProcessCancelRequest = v.object({
  path: v.object({ processId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

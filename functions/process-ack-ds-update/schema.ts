import * as v from 'valibot';
import { PathId } from '../../shared/schemas/primitives.ts';

/** POST /v2/processes/{processId}/ack-ds-update: the process id, nothing else (a body is not read). */
export const AckDsUpdateRequest = v.object({
  path: v.object({ processId: PathId }),
  query: v.object({}),
  body: v.undefined(),
});

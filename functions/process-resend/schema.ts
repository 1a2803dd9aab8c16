import * as v from 'valibot';
import { bodyObject, PathId } from '../../shared/schemas/primitives.ts';

/** POST /v2/processes/{processId}/resend: the process id; the body, when sent, is an empty object. */
export const ProcessResendRequest = v.object({
  path: v.object({ processId: PathId }),
  query: v.object({}),
  body: bodyObject({}),
});

import * as v from 'valibot';
import { Permission, WireTime } from '../schemas/primitives.ts';

/** An API key as stored: only its SHA-256, the user and customer it belongs to, and the user's permissions. */
export const ApiKeyRecord = v.object({
  keyHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  customer: v.string(),
  user: v.string(),
  permissions: v.array(Permission),
  createdDate: WireTime,
});
export type ApiKeyRecord = v.InferOutput<typeof ApiKeyRecord>;

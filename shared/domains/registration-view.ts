import * as v from 'valibot';
import { WireTime } from '../schemas/primitives.ts';

/**
 * What a registration answers (the SDKs' DomainRegistration): the name; once registered (201) its
 * `expiryDate` and statuses; while pending (202) the name only, the process id in `X-Process-Id`.
 */
export const RegistrationView = v.object({
  domainName: v.string(),
  expiryDate: v.optional(WireTime),
  status: v.optional(v.array(v.string())),
});
export type RegistrationView = v.InferOutput<typeof RegistrationView>;

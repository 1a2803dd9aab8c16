import * as v from 'valibot';
import { ValidationLevel, ValidationStatus } from './certificate.ts';

/** The `details` of an acme process: the account's organization checks only (spec 2.9). */
export const AcmeProcessState = v.object({
  authority: v.string(),
  validationLevel: ValidationLevel,
  validations: v.object({
    organization: v.optional(ValidationStatus),
    docs: v.optional(ValidationStatus),
    voice: v.optional(ValidationStatus),
    agreement: v.optional(ValidationStatus),
  }),
});
export type AcmeProcessState = v.InferOutput<typeof AcmeProcessState>;

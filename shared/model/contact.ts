import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/** A contact handle of a customer, usable as registrant or as ADMIN/BILLING/TECH contact. */
export const ContactRecord = v.object({
  customer: Handle,
  handle: Handle,
  name: v.string(),
  organization: v.optional(v.string()),
  addressLine: v.array(v.string()),
  postalCode: v.string(),
  city: v.string(),
  state: v.optional(v.string()),
  country: v.pipe(v.string(), v.regex(/^[A-Z]{2}$/)),
  email: v.string(),
  voice: v.string(),
  /** Registry-specific contact properties (e.g. SIDN's legalForm), per provider name. */
  properties: v.optional(v.record(v.string(), v.record(v.string(), v.string()))),
  createdDate: WireTime,
});
export type ContactRecord = v.InferOutput<typeof ContactRecord>;

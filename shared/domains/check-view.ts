import * as v from 'valibot';

/** The answer of `GET /v2/domains/{domainName}/check` (the SDKs' DomainAvailability). */
export const DomainCheckView = v.strictObject({
  available: v.boolean(),
  reason: v.optional(v.pipe(v.string(), v.description('Why the name is not available: `registered`, `reserved`.'))),
  premium: v.optional(v.boolean()),
  currency: v.optional(v.string()),
  price: v.optional(
    v.pipe(v.number(), v.integer(), v.description('A premium name: its create price (its transfer price when registered), in cents.')),
  ),
  renewPrice: v.optional(
    v.pipe(v.number(), v.integer(), v.description('A premium name: its renewal price a year, in cents (with `renewPrice=true`).')),
  ),
});
export type DomainCheckView = v.InferOutput<typeof DomainCheckView>;

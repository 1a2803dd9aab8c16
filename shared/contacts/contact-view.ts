import * as v from 'valibot';
import { ContactProperties, ContactValidation } from '../model/contact.ts';
import { WireTime } from '../schemas/primitives.ts';

/**
 * A contact as the API answers it (every field the official SDKs' Contact models read), and a
 * page of them, as schemas: the OpenAPI document and the answer checks use them, the use cases
 * take their types. Kept apart from the use cases, so functions carry none of it.
 */
export const ContactView = v.strictObject({
  customer: v.string(),
  handle: v.string(),
  brand: v.pipe(v.string(), v.description('The brand the contact belongs to; `default` unless one was given.')),
  name: v.string(),
  organization: v.optional(v.string()),
  addressLine: v.pipe(v.array(v.string()), v.description('1 to 3 lines.')),
  postalCode: v.string(),
  city: v.string(),
  state: v.optional(v.string()),
  country: v.pipe(v.string(), v.description('ISO 3166-1 alpha-2.')),
  email: v.string(),
  voice: v.pipe(v.string(), v.description('E.164a: `+31.201234567`.')),
  fax: v.optional(v.string()),
  disclosedFields: v.optional(v.array(v.string())),
  properties: v.optional(v.pipe(ContactProperties, v.description('Per registry, its contact properties: `{"sidn":{"legalForm":"BV"}}`.'))),
  registries: v.optional(v.pipe(v.array(v.string()), v.description('The registries the contact has properties for.'))),
  validations: v.optional(v.array(ContactValidation)),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
});
export type ContactView = v.InferOutput<typeof ContactView>;

/** A field of a contact (what `fields` may name). */
export type ContactField = keyof ContactView;

/** A contact with only the fields `fields` asked for. */
export const ContactSelection = v.pipe(
  v.partial(ContactView),
  v.description('Only the fields named in `fields` (every field when it is not given).'),
);
export type ContactSelection = v.InferOutput<typeof ContactSelection>;

/** One page of the list (the SDKs' Page and Pagination models). */
export const ContactPage = v.strictObject({
  entities: v.array(v.union([ContactView, ContactSelection])),
  pagination: v.strictObject({
    limit: v.pipe(v.number(), v.integer()),
    offset: v.pipe(v.number(), v.integer()),
    total: v.optional(v.pipe(v.number(), v.integer(), v.description('How many contacts match; left out with `total=false`.'))),
  }),
});
export type ContactPage = v.InferOutput<typeof ContactPage>;

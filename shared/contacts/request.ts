import * as v from 'valibot';
import { disclosableFields, validationCategories } from '../model/contact.ts';
import { countryCodes } from '../schemas/countries.ts';
import { bodyObject, Handle, listOf, ProviderName } from '../schemas/primitives.ts';

/**
 * The bodies of the contact routes (docs/contacts.md), with the real API's rules: `country` ISO
 * 3166-1 alpha-2, `voice` and `fax` E.164a (`+31.201234567`), `email` an address, `addressLine` 1
 * to 3 lines, and the real API's lengths. Every violation names its field. As the PHP SDK sends
 * them, `customer` and `handle` may be in the body (they must then be the path's) and `null`
 * stands for an absent optional field.
 */

/** A text field of `min` to `max` characters. */
const text = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.minLength(min, min === 1 ? `must be 1 to ${max} characters long` : `must be ${min} to ${max} characters long`),
    v.maxLength(max, `must be ${min} to ${max} characters long`),
  );

/** E.164a: `+`, a country calling code of 1 to 3 digits, a dot, 1 to 14 digits. */
export const Phone = v.pipe(
  v.string(),
  v.regex(/^\+[0-9]{1,3}\.[0-9]{1,14}$/, 'must be a phone number in E.164a form, such as +31.201234567'),
);

/** An e-mail address: one `@`, a dotted domain, no spaces; at most 254 characters (checked first: the pattern is linear). */
export const Email = v.pipe(
  v.string(),
  v.maxLength(254, 'must be at most 254 characters long'),
  v.regex(/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/, 'must be an e-mail address'),
);

export const Country = v.pipe(
  v.string(),
  v.check((c) => countryCodes.has(c), 'must be an ISO 3166-1 alpha-2 country code in capitals, such as NL'),
);

export const AddressLines = v.pipe(listOf(text(1, 255), 3), v.minLength(1, 'must have 1 to 3 lines'));

export const DisclosedFields = v.pipe(
  listOf(v.picklist(disclosableFields, `must be one of ${disclosableFields.join(', ')}`), disclosableFields.length),
  v.check((items) => new Set(items).size === items.length, 'must not list a field twice'),
);

/** The fields of a contact a caller writes, with their rules. */
const fields = {
  brand: Handle,
  name: text(1, 255),
  organization: text(1, 255),
  addressLine: AddressLines,
  postalCode: text(1, 16),
  city: text(1, 255),
  state: text(1, 255),
  country: Country,
  email: Email,
  voice: Phone,
  fax: Phone,
  disclosedFields: DisclosedFields,
};

/** POST /v2/customers/{customer}/contacts/{handle}: a new contact. */
export const CreateContactBody = bodyObject({
  customer: v.optional(Handle),
  handle: v.optional(Handle),
  brand: v.optional(fields.brand),
  name: fields.name,
  organization: v.optional(fields.organization),
  addressLine: fields.addressLine,
  postalCode: fields.postalCode,
  city: fields.city,
  state: v.optional(fields.state),
  country: fields.country,
  email: fields.email,
  voice: fields.voice,
  fax: v.optional(fields.fax),
  disclosedFields: v.optional(fields.disclosedFields),
});
export type CreateContactBody = v.InferOutput<typeof CreateContactBody>;

/** An optional field that an empty string removes (`organization: ""`, as the WHMCS module sends). */
const removable = <S extends v.GenericSchema<string, string>>(schema: S) =>
  v.optional(v.union([v.literal(''), schema], (issue) => issue.issues?.at(-1)?.message ?? 'is not valid'));

/** POST .../contacts/{handle}/update: only the fields sent change; `""` removes organization, state or fax. */
export const UpdateContactBody = bodyObject({
  customer: v.optional(Handle),
  handle: v.optional(Handle),
  brand: v.optional(fields.brand),
  name: v.optional(fields.name),
  organization: removable(fields.organization),
  addressLine: v.optional(fields.addressLine),
  postalCode: v.optional(fields.postalCode),
  city: v.optional(fields.city),
  state: removable(fields.state),
  country: v.optional(fields.country),
  email: v.optional(fields.email),
  voice: v.optional(fields.voice),
  fax: removable(fields.fax),
  disclosedFields: v.optional(fields.disclosedFields),
  designatedAgent: v.optional(v.picklist(['NONE', 'OLD', 'NEW', 'BOTH'], 'must be NONE, OLD, NEW or BOTH')),
});
export type UpdateContactBody = v.InferOutput<typeof UpdateContactBody>;

/** POST .../contacts/{handle}/validate. */
export const ValidateContactBody = bodyObject({
  categories: v.pipe(
    listOf(v.picklist(validationCategories, `must be one of ${validationCategories.join(', ')}`), validationCategories.length),
    v.minLength(1, 'must name at least one category'),
    v.check((items) => new Set(items).size === items.length, 'must not list a category twice'),
  ),
});
export type ValidateContactBody = v.InferOutput<typeof ValidateContactBody>;

/** POST .../contacts/{handle}/split. */
export const SplitContactBody = bodyObject({
  newHandle: Handle,
  registries: v.optional(listOf(ProviderName, 50)),
});
export type SplitContactBody = v.InferOutput<typeof SplitContactBody>;

/**
 * Property values: at most 50 names, each value at most 255 characters. An empty list stands for
 * no properties: PHP encodes an empty array (its empty map) as `[]`.
 */
const PropertyMap = v.pipe(
  v.unknown(),
  v.check((x) => !Array.isArray(x) || x.length === 0, 'must be an object of property names and values'),
  v.transform((x) => (Array.isArray(x) ? {} : x)),
  v.record(v.pipe(v.string(), v.maxLength(64, 'must be at most 64 characters long')), text(1, 255)),
  v.check((map) => Object.keys(map).length <= 50, 'must have at most 50 properties'),
);

/** POST .../contacts/{handle}/{registry}: properties for one registry. */
export const AddPropertiesBody = bodyObject({
  properties: PropertyMap,
  intendedUsage: v.optional(v.picklist(['REGISTRANT', 'ADMIN', 'BILLING', 'TECH'], 'must be REGISTRANT, ADMIN, BILLING or TECH')),
});
export type AddPropertiesBody = v.InferOutput<typeof AddPropertiesBody>;

/** POST .../contacts/{handle}/{registry}/update: the properties to change (`null` or `[]`, as PHP may send an empty map: none). */
export const UpdatePropertiesBody = bodyObject({
  properties: v.optional(PropertyMap, {}),
});
export type UpdatePropertiesBody = v.InferOutput<typeof UpdatePropertiesBody>;

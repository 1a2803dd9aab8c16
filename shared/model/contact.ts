import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/** The brand a contact carries when none is given (the real API's default brand). */
export const defaultBrand = 'default';

/** The validation categories a contact may be validated for (the PHP SDK's list, with Esnic of the real API's docs). */
export const validationCategories = ['General', 'IisNu', 'IisSe', 'Esnic', 'Nominet', 'DkHostmaster'] as const;

/** The contact fields a registry may be asked to disclose in its WHOIS/RDAP. */
export const disclosableFields = [
  'name',
  'organization',
  'addressLine',
  'postalCode',
  'city',
  'state',
  'country',
  'email',
  'voice',
  'fax',
] as const;

/** A validation a contact passed (the SDKs' `Validation`: `validatedOn`, `version`, `category`). */
export const ContactValidation = v.object({
  validatedOn: WireTime,
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  category: v.string(),
});

/** Registry properties: per registry (provider name), a map of property name to value (`{"sidn":{"legalForm":"BV"}}`). */
export const ContactProperties = v.record(v.string(), v.record(v.string(), v.string()));
export type ContactProperties = v.InferOutput<typeof ContactProperties>;

/**
 * A contact handle of a customer, usable as registrant or as ADMIN/BILLING/TECH contact: every
 * field the official SDKs' Contact models read (docs/contacts.md). `brand` defaults to `default`
 * for items written before it was stored (`npm run admin -- migrate` writes it).
 */
export const ContactRecord = v.object({
  customer: Handle,
  handle: Handle,
  brand: v.optional(v.string(), defaultBrand),
  name: v.string(),
  organization: v.optional(v.string()),
  addressLine: v.array(v.string()),
  postalCode: v.string(),
  city: v.string(),
  state: v.optional(v.string()),
  country: v.pipe(v.string(), v.regex(/^[A-Z]{2}$/)),
  email: v.string(),
  voice: v.string(),
  fax: v.optional(v.string()),
  /** The fields the contact asks registries to disclose. */
  disclosedFields: v.optional(v.array(v.string())),
  /** Registry-specific contact properties (e.g. SIDN's legalForm), per provider name. */
  properties: v.optional(ContactProperties),
  /** The registries the contact is known at (those it has properties for, or was used at). */
  registries: v.optional(v.array(v.string())),
  validations: v.optional(v.array(ContactValidation)),
  /** The handle of this contact at the upstream registry account (REGISTRY_GATEWAY=rtr), once mirrored. */
  upstreamHandle: v.optional(v.string()),
  /** The revision of the contact the upstream account holds (it is mirrored again when the contact's own is newer). */
  upstreamRevision: v.optional(v.number()),
  createdDate: WireTime,
  updatedDate: v.optional(WireTime),
});
export type ContactRecord = v.InferOutput<typeof ContactRecord>;

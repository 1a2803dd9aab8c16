import type { ContactRecord } from '../model/contact.ts';
import type { ContactField, ContactSelection, ContactView } from './contact-view.ts';

/** The fields of a contact, in the order the API answers them (what `fields` may name). */
export const contactFields = [
  'customer',
  'handle',
  'brand',
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
  'disclosedFields',
  'properties',
  'registries',
  'validations',
  'createdDate',
  'updatedDate',
] as const satisfies readonly ContactField[];

/** A contact as the API answers it: the record without what is ours alone (its upstream handle and revision). */
export function contactViewOf(c: ContactRecord): ContactView {
  const { upstreamHandle: _upstream, upstreamRevision: _revision, ...view } = c;
  if (c.registries === undefined && c.properties === undefined) return view as ContactView;
  const registries = [...new Set([...(c.registries ?? []), ...Object.keys(c.properties ?? {})])].sort();
  return { ...view, ...(registries.length > 0 ? { registries } : {}) } as ContactView;
}

/** Only the fields asked for (every field without `fields`). */
export function selectFields(view: ContactView, fields: readonly ContactField[] | undefined): ContactSelection {
  if (fields === undefined) return view;
  return Object.fromEntries(fields.filter((f) => view[f] !== undefined).map((f) => [f, view[f]])) as ContactSelection;
}

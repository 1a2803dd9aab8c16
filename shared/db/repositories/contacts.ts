import * as v from 'valibot';
import { Handle, WireTime } from '../../schemas/primitives.ts';
import { getItem, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'contact';

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

export function putContact(record: ContactRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.contact(record.customer, record.handle), entity, record), ifAbsent);
}

/** A contact of this customer; another customer's handle is simply not found. */
export function getContact(customer: string, handle: string): Promise<ContactRecord | undefined> {
  return getItem(keys.contact(customer, handle), ContactRecord, entity);
}

export async function listContacts(customer: string): Promise<ContactRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.contactsOfCustomer(customer).pk },
  });
  return items.map((item) => parseItem(ContactRecord, entity, item));
}

import type { ContactField, ContactSelection } from './contact-view.ts';
import { ownContact } from './own.ts';
import { contactViewOf, selectFields } from './view.ts';

/** GET /v2/customers/{customer}/contacts/{handle}: one contact of the caller (only `fields`, when asked). */
export async function getContact(
  caller: string,
  customer: string,
  handle: string,
  fields?: readonly ContactField[],
): Promise<ContactSelection> {
  const { contact } = await ownContact(caller, customer, handle);
  return selectFields(contactViewOf(contact), fields);
}

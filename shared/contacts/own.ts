import { type ReadContact, readContact } from '../db/repositories/contacts.ts';
import { AuthorizationError, ObjectDoesNotExist } from '../errors.ts';

/**
 * Whose contacts a caller reaches (docs/contacts.md): its own customer's only. A contact named by
 * handle is read from the path's customer's partition whoever that is, and another customer's
 * answers exactly like a missing one (the same read, the same 404): existence does not leak, not
 * even in time. Listing or creating in another customer's address book is refused (403), as the
 * notifications and the price list are.
 */

/** The most contacts a customer keeps: `CONTACTS_MAX`, default 20000 (then a create is a 400). */
export function maxContacts(): number {
  const value = Number(process.env.CONTACTS_MAX ?? 20_000);
  return Number.isInteger(value) && value > 0 ? value : 20_000;
}

/** Refuses any customer's address book but the caller's own. */
export function ownAddressBook(caller: string, customer: string): void {
  if (customer !== caller) throw new AuthorizationError(`The contacts of customer '${customer}' are not yours.`);
}

/** A contact of the caller, with the revision it was read at; another customer's or a missing one: 404. */
export async function ownContact(caller: string, customer: string, handle: string, consistent = false): Promise<ReadContact> {
  const found = await readContact(customer, handle, consistent);
  if (!found || customer !== caller) throw new ObjectDoesNotExist('Contact', handle);
  return found;
}

/** How often a write is tried again when the contact changed between its read and its write. */
export const writeAttempts = 3;

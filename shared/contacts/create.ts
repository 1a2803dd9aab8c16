import { type CommitWith, commitNothing, itemsOf } from '../db/repositories/commit-with.ts';
import { createContact as recordContact } from '../db/repositories/contacts.ts';
import { ObjectExists, ValidationError, type Violation } from '../errors.ts';
import { type ContactRecord, defaultBrand } from '../model/contact.ts';
import { now, toWireTime } from '../time.ts';
import type { ContactView } from './contact-view.ts';
import { maxContacts, ownAddressBook } from './own.ts';
import type { CreateContactBody } from './request.ts';
import { contactViewOf } from './view.ts';

/**
 * The `customer` and `handle` the PHP SDK repeats in the body must be the path's (a body naming
 * another is refused, field by field).
 */
export function assertSameTarget(customer: string, handle: string, body: { customer?: string; handle?: string }): void {
  const violations: Violation[] = [];
  if (body.customer !== undefined && body.customer !== customer) {
    violations.push({ field: 'customer', message: 'must be the customer of the path', value: body.customer });
  }
  if (body.handle !== undefined && body.handle !== handle) {
    violations.push({ field: 'handle', message: 'must be the handle of the path', value: body.handle });
  }
  if (violations.length > 0) throw new ValidationError('The body names another contact than the path.', violations);
}

/**
 * POST /v2/customers/{customer}/contacts/{handle}: a new contact in the caller's address book,
 * counted against its limit, in one transaction with `commitWith` (an Idempotency-Key's answer).
 * A handle in use: 409 ObjectExists.
 */
export async function createContact(
  caller: string,
  customer: string,
  handle: string,
  body: CreateContactBody,
  commitWith: CommitWith<ContactView> = commitNothing,
): Promise<ContactView> {
  ownAddressBook(caller, customer);
  assertSameTarget(customer, handle, body);
  const { customer: _c, handle: _h, brand, ...fields } = body;
  const record: ContactRecord = { customer, handle, brand: brand ?? defaultBrand, ...fields, createdDate: toWireTime(now()) };
  const view = contactViewOf(record);
  const max = maxContacts();
  const written = await recordContact(record, max, itemsOf(commitWith(view)));
  if (written === 'exists') throw new ObjectExists(`Contact '${handle}' already exists.`, 409);
  if (written === 'full') {
    throw new ValidationError(`An address book holds at most ${max} contacts: delete contacts you no longer use first.`, [
      { field: 'handle', message: `would exceed the limit of ${max} contacts`, value: handle },
    ]);
  }
  return view;
}

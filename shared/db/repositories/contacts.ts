import { ContactRecord } from '../../model/contact.ts';
import { getItem, listPartition, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'contact';

export function putContact(record: ContactRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.contact(record.customer, record.handle), entity, record), ifAbsent);
}

/** A contact of this customer; another customer's handle is simply not found. */
export function getContact(customer: string, handle: string): Promise<ContactRecord | undefined> {
  return getItem(keys.contact(customer, handle), ContactRecord, entity);
}

export function listContacts(customer: string): Promise<ContactRecord[]> {
  return listPartition(keys.contactsOfCustomer(customer).pk, ContactRecord, entity);
}

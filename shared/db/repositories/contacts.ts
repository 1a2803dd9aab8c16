import { ContactRecord } from '../../model/contact.ts';
import { getItem, parseItem, putItem, queryAll, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'contact';

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

import { CustomerRecord } from '../../model/customer.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'customer';

export function putCustomer(record: CustomerRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.customer(record.handle), entity, record), ifAbsent);
}

export function getCustomer(handle: string): Promise<CustomerRecord | undefined> {
  return getItem(keys.customer(handle), CustomerRecord, entity);
}

import * as v from 'valibot';
import { Handle, WireTime } from '../../schemas/primitives.ts';
import { getItem, putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

const entity = 'customer';

/** A customer account: its handle, account currency and account-wide defaults. */
export const CustomerRecord = v.object({
  handle: Handle,
  name: v.string(),
  currency: v.picklist(['EUR', 'USD']),
  /** The account's privacy-protect setting, the default for new domains (spec 2.1). */
  privacyProtect: v.boolean(),
  createdDate: WireTime,
});
export type CustomerRecord = v.InferOutput<typeof CustomerRecord>;

export function putCustomer(record: CustomerRecord, ifAbsent = false): Promise<boolean> {
  return putItem(toItem(keys.customer(record.handle), entity, record), ifAbsent);
}

export function getCustomer(handle: string): Promise<CustomerRecord | undefined> {
  return getItem(keys.customer(handle), CustomerRecord, entity);
}

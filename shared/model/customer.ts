import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

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

import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/** A customer account: its handle, account currency and account-wide defaults. */
export const CustomerRecord = v.object({
  handle: Handle,
  name: v.string(),
  currency: v.picklist(['EUR', 'USD']),
  /** The account's privacy-protect setting, the default for new domains (spec 2.1). */
  privacyProtect: v.boolean(),
  /**
   * The expiry notices the account gets before a domain expires, in days before its expiry
   * (docs/domains.md, "Life cycle"); absent: 30 and 7. `[]` sends none.
   */
  expiryNoticeDays: v.optional(
    v.pipe(
      v.array(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(90))),
      v.maxLength(5),
      v.description('Days before expiry, 1 to 90.'),
    ),
  ),
  createdDate: WireTime,
});
export type CustomerRecord = v.InferOutput<typeof CustomerRecord>;

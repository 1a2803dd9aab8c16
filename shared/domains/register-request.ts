import * as v from 'valibot';
import { AcknowledgedBillables } from '../pricing/index.ts';
import { bodyObject, Handle, listOf } from '../schemas/primitives.ts';
import { ContactRequest, KeyDataRequest, NameServerList, ZoneRequest } from '../transfer/request.ts';

/**
 * The body of a registration (POST /v2/domains/{domainName}): the real API's fields. `null` in any
 * optional field is absent (the PHP client sends its unset fields so).
 */

const distinct = <T>(items: readonly T[], key: (item: T) => string) => new Set(items.map(key)).size === items.length;

export const RegisterBody = bodyObject({
  customer: Handle,
  registrant: Handle,
  period: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be an integer number of months'),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(120, 'must be at most 120'),
    ),
  ),
  privacyProtect: v.optional(v.boolean()),
  autoRenew: v.optional(v.boolean()),
  ns: v.optional(NameServerList),
  contacts: v.optional(
    v.pipe(
      listOf(ContactRequest, 10),
      v.check((items) => distinct(items, (c) => `${c.role} ${c.handle}`), 'must not list a contact twice in one role'),
    ),
  ),
  keyData: v.optional(listOf(KeyDataRequest, 20)),
  zone: v.optional(ZoneRequest),
  languageCode: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as de or zh-Hans'),
      v.maxLength(35, 'must be at most 35 characters long'),
    ),
  ),
  launchPhase: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters long'))),
  /** Accepted as the real API takes it; no sandbox registry pre-validates a registrant (docs/domains.md). */
  skipValidation: v.optional(v.boolean()),
  billables: v.optional(AcknowledgedBillables),
  authcode: v.optional(
    v.pipe(v.string(), v.minLength(6, 'must be 6 to 64 characters long'), v.maxLength(64, 'must be 6 to 64 characters long')),
  ),
});
export type RegisterBody = v.InferOutput<typeof RegisterBody>;

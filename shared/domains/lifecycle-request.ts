import * as v from 'valibot';
import { AcknowledgedBillables } from '../pricing/index.ts';
import { bodyObject } from '../schemas/primitives.ts';
import { toWireTime } from '../time.ts';

/**
 * The bodies of `POST /v2/domains/{domainName}/renew` and `.../restore` (the real API's, as the SDKs
 * and the WHMCS module send them). `null` is absent (the PHP SDK sends its unset fields as null).
 */

/** An ISO 8601 date-time with seconds and a zone (`2027-03-04T11:20:00Z`, `2027-03-04T12:20:00.000+01:00`). */
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
/** PHP's DateTime as JSON (`{"date":"2027-03-04 11:20:00.000000","timezone_type":3,"timezone":"UTC"}`). */
const phpDatePattern = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/;
const offsetPattern = /^[+-]\d{2}:\d{2}$/;
/** The zone names of PHP's DateTime that are UTC itself (timezone_type 2 and 3). */
const utcNames = new Set(['UTC', 'Z', 'GMT', 'Etc/UTC', 'Etc/GMT', 'Universal', 'Zulu']);

const instant = (text: string) => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : toWireTime(ms);
};

const PhpDate = v.pipe(
  v.strictObject({
    date: v.pipe(v.string(), v.regex(phpDatePattern, 'must be yyyy-MM-dd HH:mm:ss[.uuuuuu]')),
    timezone_type: v.picklist([1, 2, 3], 'must be 1, 2 or 3'),
    timezone: v.pipe(v.string(), v.maxLength(64, 'must be at most 64 characters long')),
  }),
  v.check(
    (d) => utcNames.has(d.timezone) || offsetPattern.test(d.timezone),
    'must be in UTC or a fixed offset (+01:00): send the expiry as GET /v2/domains/{domainName} answers it',
  ),
  v.transform((d) => instant(`${d.date.replace(' ', 'T')}${utcNames.has(d.timezone) ? 'Z' : d.timezone}`)),
);

/**
 * The renewal's guard: the expiry the caller believes the domain has, in ISO 8601 or as PHP's
 * DateTime object (what the PHP SDK sends); compared to the second. Read as a wire time.
 */
export const ExpiryGuard = v.pipe(
  v.union(
    [v.pipe(v.string(), v.regex(isoPattern, 'must be an ISO 8601 date-time such as 2027-03-04T11:20:00Z'), v.transform(instant)), PhpDate],
    'must be an ISO 8601 date-time such as 2027-03-04T11:20:00Z, or a PHP DateTime object',
  ),
  v.check((t) => t !== undefined, 'is not a valid date'),
  v.transform((t) => t as string),
);

/** A period in months: an integer, or (as the docs type it) a string of digits. */
const Period = v.pipe(
  v.union(
    [v.number(), v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'must be a number of months'), v.transform(Number))],
    'must be a number of months',
  ),
  v.integer('must be an integer number of months'),
  v.minValue(1, 'must be at least 1'),
  v.maxValue(120, 'must be at most 120'),
);

export const RenewBody = bodyObject({
  period: Period,
  billables: v.optional(AcknowledgedBillables),
  expiryDate: v.optional(ExpiryGuard),
});
export type RenewBody = v.InferOutput<typeof RenewBody>;

export const RestoreBody = bodyObject({
  reason: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(1000, 'must be at most 1000 characters long')),
  billables: v.optional(AcknowledgedBillables),
});
export type RestoreBody = v.InferOutput<typeof RestoreBody>;

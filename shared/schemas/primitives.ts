import { domainToASCII, domainToUnicode } from 'node:url';
import * as v from 'valibot';

/**
 * Shared request primitives (spec sections 2 and 8). Strings are trimmed by the pipeline before
 * validation (contract section 1); normalisation such as lower-casing happens inside the pipe.
 */

/** Spec 2.8: the domain-name pattern; lower-cased first, punycode only. */
export const domainNamePattern = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z][a-z0-9-]{0,61}[a-z0-9])$/;

const aceLabel = /(?:^|\.)xn--/i;

/** Whether a text holds a space or an ASCII control character. */
function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) <= 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}

/** Whether a text holds a character beyond ASCII (a U-label's). */
function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}
const percentEscape = /%[0-9a-fA-F]{2}/;

/**
 * A domain name in its A-label form, as the registries take it: U-labels (`münchen.de`, raw or
 * percent-encoded, as a path may carry them) converted per UTS #46 (nontransitional, as
 * node's `url.domainToASCII` implements it for the WHATWG URL standard: `faß.de` becomes
 * `xn--fa-hia.de`), and `xn--` labels checked to be valid punycode of a valid label (decoded and
 * encoded again, they must come back as they were). Undefined when the name cannot be converted
 * (`xn--zz.nl`). Plain ASCII names are left as they are.
 */
export function toALabels(name: string): string | undefined {
  let text = name;
  // A domain name never holds `%`: a percent-escape is an encoded U-label (or nothing valid).
  if (percentEscape.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return undefined;
    }
  }
  // The WHATWG converter drops tabs and line breaks and trims spaces and controls (URL parsing, not
  // UTS #46): such a name is left as it is, for the pattern to refuse.
  if (hasControlOrSpace(text) || (!hasNonAscii(text) && !aceLabel.test(text))) return text;
  const ascii = domainToASCII(text);
  if (ascii === '') return undefined;
  // Node's converter passes an `xn--` label through without decoding it: each must decode to a
  // U-label whose own A-label it is (RFC 5891 5.4), else it is not valid punycode.
  for (const label of ascii.split('.')) {
    if (!label.startsWith('xn--')) continue;
    const unicode = domainToUnicode(label);
    if (unicode === '' || unicode.startsWith('xn--') || domainToASCII(unicode) !== label) return undefined;
  }
  return ascii;
}

/** A domain name (spec 2.8) in a path or a record: converted to A-labels, lower-cased, checked. */
export const DomainName = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const ascii = toALabels(dataset.value);
    if (ascii === undefined) {
      addIssue({ message: 'is not a valid internationalized domain name (UTS #46; xn-- labels must be valid punycode)' });
      return NEVER;
    }
    return ascii;
  }),
  v.toLowerCase(),
  v.minLength(3, 'must be 3 to 255 characters long'),
  v.maxLength(255, 'must be 3 to 255 characters long'),
  v.regex(domainNamePattern, 'is not a valid domain name (lower-case, punycode for IDN)'),
);

/** A domain extension in a path (`nl`, `co.uk`): one or more labels, lower-cased, the last one a letter first. */
export const Extension = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.minLength(2, 'must be 2 to 255 characters long'),
  v.maxLength(255, 'must be 2 to 255 characters long'),
  v.regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
    'is not a valid extension (lower-case, punycode for IDN)',
  ),
);

/** Spec 2.1: customer, registrant, contact and template handles. */
export const Handle = v.pipe(
  v.string(),
  v.minLength(3, 'must be 3 to 40 characters long'),
  v.maxLength(40, 'must be 3 to 40 characters long'),
  v.regex(/^[a-zA-Z0-9\-_@.]+$/, 'may contain only letters, digits and - _ @ .'),
);

/** A provider name in a path (`sidn`); case-insensitive, stored lower-case. */
export const ProviderName = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(40, 'must be at most 40 characters long'),
  v.regex(/^[a-z0-9][a-z0-9\-_.]*$/, 'may contain only letters, digits and - _ .'),
);

/** A positive integer id in a path segment (`processId`, `certificateId`). */
export const PathId = v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer'), v.transform(Number));

/**
 * The spellings of a boolean in a query string: `true` or `false` (case-insensitive), and `1` or `0`,
 * which is how PHP's `http_build_query` writes `true` and `false` (the PHP SDK's
 * `domains->check(..., renewPrice: true)` sends `renewPrice=1`).
 */
export const queryBooleanSpellings = ['true', 'false', '1', '0'] as const;

/** Whether a query value spelled as one of `queryBooleanSpellings` means true. */
export const queryBooleanIsTrue = (value: string) => value === 'true' || value === '1';

/** A boolean query flag such as `quote`: `true` or `false` (case-insensitive), or `1` or `0`. */
export const QueryBoolean = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.picklist(queryBooleanSpellings, 'must be true or false'),
  v.transform((s) => queryBooleanIsTrue(s)),
);

export const Currency = v.pipe(v.string(), v.toUpperCase(), v.picklist(['EUR', 'USD'], 'must be EUR or USD'));

/**
 * A list of at most `max` items of `item` in a request body. The length is checked before any item
 * (issue 18: bounded error bodies): a list of 21,000 broken items answers one violation, not one per
 * item, and costs no more than its length to refuse.
 */
export function listOf<const TItem extends v.GenericSchema>(item: TItem, max: number) {
  return v.pipe(v.array(v.unknown()), v.maxLength(max, `must have at most ${max} items`), v.array(item));
}

/** Schema types of an entry that may be left out. */
const optionalTypes = new Set(['optional', 'exact_optional', 'nullish', 'undefinedable']);

/**
 * A JSON object of a request body with exactly these keys (unknown keys: UnrecognizedProperty).
 * valibot's object schemas also take arrays (`[]` passes as `{}`, `["x"]` reports a property `0`),
 * so anything but a plain object is refused first (found by the fuzz suite).
 *
 * Contract section 1: a JSON `null` in an optional field means the field is absent (the PHP client
 * sends its models' unset fields as `null`), so those keys are dropped before the object is checked.
 * A `null` in a required field stays, and is a violation on that field; a `null` under a key the
 * object does not define is still an unknown property.
 */
export function bodyObject<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  const optional = new Set(Object.keys(entries).filter((key) => optionalTypes.has((entries[key] as v.GenericSchema).type)));
  return v.pipe(
    v.custom<Record<string, unknown>>((input) => typeof input === 'object' && input !== null && !Array.isArray(input), 'must be an object'),
    v.transform((input) => Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== null || !optional.has(key)))),
    v.strictObject(entries),
  );
}

/**
 * What a key may do beyond reading and acting on its own account: `DESIGNATED_AGENT` (act as
 * designated agent on a transfer), `MANAGE_WEBHOOK` (register, move, remove the webhook and rotate
 * its secret: change where the customer's notifications go).
 */
export const Permission = v.picklist(['DESIGNATED_AGENT', 'MANAGE_WEBHOOK']);
export type Permission = v.InferOutput<typeof Permission>;

/** A wire timestamp `yyyy-MM-ddTHH:mm:ssZ` (contract section 1), as stored in items. */
export const WireTime = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'must be yyyy-MM-ddTHH:mm:ssZ'));

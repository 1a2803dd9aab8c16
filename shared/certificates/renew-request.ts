import * as v from 'valibot';
import { AcknowledgedBillables } from '../pricing/quote.ts';
import { bodyObject, domainNamePattern, listOf } from '../schemas/primitives.ts';

/** The body of a certificate renewal (POST /v2/ssl/certificates/{certificateId}/renew): spec 2.7 under the contract 3.2 keys. */

/** A name to certify: the spec 2.8 pattern, optionally as a wildcard `*.example.com`. */
const CertificateName = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.minLength(3, 'must be 3 to 255 characters long'),
  v.maxLength(255, 'must be 3 to 255 characters long'),
  v.check(
    (s) => domainNamePattern.test(s.startsWith('*.') ? s.slice(2) : s),
    'is not a valid domain name (lower-case, punycode for IDN, optionally *. for a wildcard)',
  ),
);

const Email = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.maxLength(254, 'must be at most 254 characters long'),
  v.email('is not a valid e-mail address'),
);

const Text = (max: number) =>
  v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters long`));

/** Contract 3.2: `EN`, `NL`, `FR`, `DE`; any other language code falls back to `EN`. */
export const supportedLanguages = ['EN', 'NL', 'FR', 'DE'] as const;
const Language = v.pipe(
  v.string(),
  v.toUpperCase(),
  v.regex(/^[A-Z]{2}$/, 'must be a two-letter language code'),
  v.transform((code) => ((supportedLanguages as readonly string[]).includes(code) ? code : 'EN')),
);

export const Approver = bodyObject({
  firstName: Text(64),
  lastName: Text(64),
  jobTitle: v.optional(Text(64)),
  email: Email,
  voice: v.pipe(v.string(), v.regex(/^\+\d{1,3}\.\d{4,14}$/, 'must be a telephone number like +31.201234567')),
});

export const DcvRequest = bodyObject({
  commonName: CertificateName,
  type: v.picklist(['EMAIL', 'DNS', 'FILE'], 'must be EMAIL, DNS or FILE'),
  email: v.optional(Email),
});
export type DcvRequest = v.InferOutput<typeof DcvRequest>;

export const RenewBody = bodyObject({
  product: v.optional(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9_]{1,64}$/, 'is not a product name'))),
  period: v.pipe(
    v.number('must be a number of months'),
    v.integer('must be a whole number of months'),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(120, 'must be at most 120'),
  ),
  csr: v.pipe(
    v.string('must be a PEM encoded CSR'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(16_384, 'must be at most 16384 characters long'),
  ),
  domainName: v.optional(CertificateName),
  san: v.optional(listOf(CertificateName, 250)),
  organization: v.optional(Text(64)),
  department: v.optional(Text(64)),
  state: v.optional(Text(64)),
  address: v.optional(Text(255)),
  postalCode: v.optional(Text(16)),
  city: v.optional(Text(64)),
  coc: v.optional(Text(32)),
  language: v.optional(Language),
  uniqueValue: v.optional(v.pipe(v.string(), v.regex(/^[a-zA-Z0-9]{1,20}$/, 'must be 1 to 20 letters and digits'))),
  authKey: v.optional(v.boolean()),
  approver: v.optional(Approver),
  dcv: v.optional(listOf(DcvRequest, 250)),
  saEmail: v.optional(Email),
  billables: v.optional(AcknowledgedBillables),
});
export type RenewBody = v.InferOutput<typeof RenewBody>;

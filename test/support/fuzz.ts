import fc from 'fast-check';

/**
 * Generators for the property-based hardening suite (test/fuzz.test.ts): hostile JSON values as
 * raw text (so duplicate keys, `__proto__` keys, deep nesting and exact byte sizes survive), and
 * request bodies that are valid except for one broken field.
 */

/** Raw JSON text, inserted into a body as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object written with its entries in order, duplicates allowed. */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, unknown])[]) {}
}

/** Serialises a body tree: plain values, `RawJson` verbatim, `Entries` with duplicate keys. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value && typeof value === 'object') return jsonText(new Entries(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Hostile strings and values

/** Strings that break naive code: injections, prototype keys, invisible and look-alike characters. */
export const nastyStrings: readonly string[] = [
  '',
  ' ',
  '\t\n\r',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '0',
  '-1',
  '1e309',
  '0x10',
  "' OR '1'='1",
  '"; DROP TABLE x; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '#{7*7}',
  '../../../etc/passwd',
  '..\\..\\boot.ini',
  '%00',
  '%2e%2e%2f',
  '%ZZ',
  '%',
  '\u0000',
  'demo\u0000',
  '\u001b[31mred',
  '\r\nX-Injected: 1',
  '\uFEFFdemo',
  'demo\u200B',
  '\u202Edemo',
  'DEMO',
  ' demo ',
  'démo',
  'ｄｅｍｏ',
  '😀',
  '👨‍👩‍👧‍👦',
  '\uD800',
  '\uDFFF',
  'a\uD800b',
  'a'.repeat(41),
  'a'.repeat(65),
  'a'.repeat(256),
  'a'.repeat(4097),
  'xn--',
  'xn--bcher-kva.com',
  'EXAMPLE.COM',
  'example.com.',
  '*.example.com',
  'a..b.com',
  '-a.com',
  'a-.com',
  'localhost',
  '127.0.0.1',
  '::1',
  '999.1.1.1',
  '1.2.3',
  'other',
  'other-registrant',
  'demo-template',
  'DOMAIN#demo-shop.nl',
  'APIKEY#',
  'PROCESS#601',
  'ApiKey demo-key',
  'demo-key',
  '-----BEGIN CERTIFICATE REQUEST-----',
  'ADMIN',
  'admin',
  'BASIC',
  'basic',
  'NONE',
  'EMAIL',
  'DNS',
  'FILE',
  'TRANSFER',
  'RENEW',
  'EUR',
  'usd',
  'mailto:x@y',
  'x@y',
  '@',
  'a@b.c',
  '+31.201234567',
  '+31.2',
  '12345678901234567890123',
];

/** One character from the ranges that break things: controls, surrogates, bidi, non-characters, astral. */
const nastyChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u200b', '\u200e', '\u202e', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '"', '\\', '/', '%', '#', '?', '&', '='),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: nastyChar, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(nastyChar, fc.constantFrom('a', '.', '-')), minLength: 1, maxLength: 60 }) },
  {
    weight: 1,
    // Huge: up to past the 64 KiB body limit, in one- to four-byte characters.
    arbitrary: fc
      .tuple(fc.integer({ min: 256, max: 70_000 }), fc.constantFrom('a', 'é', '€', '😀'))
      .map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
  },
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '-1',
    '1.5',
    '1e308',
    '-1e308',
    '1E400',
    '-1E400',
    '9007199254740993',
    '123456789012345678901234567890',
    '0.1',
    '3',
    '12',
    '256',
    '257',
    '1e-400',
    '5e-324',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
);

const jsonScalar: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('null', 'true', 'false'),
  hostileNumber,
  hostileString.map((s) => JSON.stringify(s)),
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'valueOf',
    'hasOwnProperty',
    '__defineGetter__',
    '',
    ' ',
    'a.b',
    'ns[0]',
    'Customer',
    'customer ',
    '$where',
    'pk',
    'sk',
    'entity',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: nastyChar, maxLength: 6 }),
);

/** Any JSON value as text, a few levels deep, with hostile keys and scalars. */
const jsonTree: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonScalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }).map((xs) => `[${xs.join(',')}]`),
  object: fc
    .array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 })
    .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).value;

/** Deep nesting, as text: up to 40,000 levels of arrays or objects (some past the size limit). */
export const deepNesting: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 50, max: 40_000 }), fc.constantFrom<['[', ']'] | ['{"a":', '}']>(['[', ']'], ['{"a":', '}']))
  .map(([depth, [open, close]]) => `${open.repeat(depth)}1${close.repeat(depth)}`);

/** A hostile JSON value as text. */
export const hostileJson: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: jsonScalar },
  { weight: 3, arbitrary: jsonTree },
  { weight: 1, arbitrary: deepNesting },
);

// ---------------------------------------------------------------------------------------------
// Bodies with one broken field

export type FieldKind = 'string' | 'boolean' | 'integer' | 'array' | 'object';
export type Path = readonly (string | number)[];

/** A field of a request body: where it is and which JSON kind it must have. */
export interface FieldSpec {
  path: Path;
  kind: FieldKind;
  /** The field may be left out; then `null` means the same (contract section 1), not a wrong type. */
  optional?: true;
}

const kindsOf: Record<FieldKind, fc.Arbitrary<string>> = {
  string: hostileString.map((s) => JSON.stringify(s)),
  boolean: fc.constantFrom('true', 'false'),
  integer: fc.integer({ min: -5, max: 500 }).map(String),
  array: fc.array(jsonScalar, { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
  object: fc
    .array(fc.tuple(hostileKey, jsonScalar), { maxLength: 3 })
    .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
};

/** A value of any JSON kind other than `kind` (null too, unless the field is optional): a wrong type for the field. */
export function wrongType(kind: FieldKind, optional = false): fc.Arbitrary<string> {
  const others = (Object.keys(kindsOf) as FieldKind[]).filter((k) => k !== kind);
  return fc.oneof(
    ...(optional ? [] : [fc.constant('null')]),
    ...others.map((k) => kindsOf[k]),
    ...(kind === 'integer' ? [fc.constantFrom('1.5', '"12"', '1E400')] : []),
  );
}

export type Mutation =
  | { kind: 'replace'; path: Path; raw: string }
  | { kind: 'wrongType'; path: Path; raw: string }
  | { kind: 'delete'; path: Path }
  | { kind: 'unknownKey'; parent: Path; key: string; raw: string }
  | { kind: 'duplicate'; path: Path; raw: string; last: boolean }
  | { kind: 'wholeBody'; raw: string };

/** The mutations of a body: one field broken in one way (or the whole body replaced). */
export function mutations(fields: readonly FieldSpec[], objects: readonly Path[]): fc.Arbitrary<Mutation> {
  const field = fc.constantFrom(...fields);
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(field, hostileJson).map(([f, raw]): Mutation => ({ kind: 'replace', path: f.path, raw })) },
    {
      weight: 3,
      arbitrary: field.chain((f) => wrongType(f.kind, f.optional).map((raw): Mutation => ({ kind: 'wrongType', path: f.path, raw }))),
    },
    { weight: 1, arbitrary: field.map((f): Mutation => ({ kind: 'delete', path: f.path })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...objects), hostileKey, hostileJson)
        .map(([parent, key, raw]): Mutation => ({ kind: 'unknownKey', parent, key, raw })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(field, hostileJson, fc.boolean())
        .map(([f, raw, last]): Mutation => ({ kind: 'duplicate', path: f.path, raw, last })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          hostileJson,
          fc.constantFrom('', ' ', '{', '{"a":}', '[{}]', "{'a':1}", '{"a":1,}', 'NaN', '{"customer":"demo"}{}', '\u0000', '\uFEFF{}'),
        )
        .map((raw): Mutation => ({ kind: 'wholeBody', raw })),
    },
  );
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** The container at `path` inside `root` (creating nothing). */
function at(root: unknown, path: Path): any {
  let node: any = root;
  for (const key of path) node = node?.[key];
  return node;
}

/** Applies a mutation to a valid base body; answers the body text. */
export function applyMutation(base: Record<string, unknown>, m: Mutation): string {
  if (m.kind === 'wholeBody') return m.raw;
  const body = clone(base);
  if (m.kind === 'unknownKey') {
    const parent = at(body, m.parent) as Record<string, unknown>;
    const entries: [string, unknown][] = [...Object.entries(parent), [m.key, new RawJson(m.raw)]];
    if (m.parent.length === 0) return jsonText(new Entries(entries));
    setAt(body, m.parent, new Entries(entries));
    return jsonText(body);
  }
  const parentPath = m.path.slice(0, -1);
  const last = m.path[m.path.length - 1] as string | number;
  const parent = at(body, parentPath);
  if (m.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
    return jsonText(body);
  }
  if (m.kind === 'duplicate') {
    const entries = Object.entries(parent as Record<string, unknown>);
    const dup: [string, unknown] = [String(last), new RawJson(m.raw)];
    const next = m.last ? [...entries, dup] : [dup, ...entries];
    if (parentPath.length === 0) return jsonText(new Entries(next));
    setAt(body, parentPath, new Entries(next));
    return jsonText(body);
  }
  parent[last] = new RawJson(m.raw);
  return jsonText(body);
}

function setAt(root: any, path: Path, value: unknown): void {
  const parent = at(root, path.slice(0, -1));
  parent[path[path.length - 1] as string | number] = value;
}

/** The contract's field path of a body path: `contacts[0].handle`. */
export function fieldPath(path: Path): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? key : `.${key}`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths, queries, methods and headers

/** A path segment as a client might send it: encoded, raw, or with broken percent-encoding. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString
    .filter((s) => s.length < 600)
    .map((s) => {
      try {
        return encodeURIComponent(s);
      } catch {
        return s.replace(/[/?#]/g, '');
      }
    }),
  fc.constantFrom(
    '%ZZ',
    '%',
    '%E0%A4%A',
    '%C0%AE',
    '%2F',
    '%2e%2e',
    '..',
    '.',
    '%00',
    '%u0041',
    '+',
    '%20demo%20',
    'DEMO-SHOP.NL',
    '0',
    '-1',
    '01',
    '1.0',
    '1e3',
    '0x10',
    '999999999999999',
    '9999999999999999999999',
    ' 1',
    '%201',
  ),
  fc.string({
    unit: fc.constantFrom('a', '1', '.', '-', '_', '@', '%', '~', '!', '$', "'", '(', '*', ',', ';', ':', '[', ']'),
    maxLength: 20,
  }),
);

/** A query string (after `?`): hostile names and values, repeats, broken encodings. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    'quote',
    'quote=',
    'quote=TRUE',
    'quote=yes',
    'quote=true&quote=false',
    'quote[]=true',
    'currency=usd',
    'currency=USD&currency=EUR',
    'currency=',
    'currency=%ZZ',
    'currency=eu%00r',
    '__proto__=1',
    'constructor=x',
    '&&&',
    '=',
    '%',
    'a=%E0%A4%A',
    'currency=GBP',
    'quote=true&currency=EUR',
  ),
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom('quote', 'currency', '__proto__', 'x'), fc.string({ maxLength: 8 })),
        hostileString.filter((s) => s.length < 300),
      ),
      { maxLength: 4 },
    )
    .map((pairs) =>
      pairs
        .map(([k, v]) => {
          try {
            return `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
          } catch {
            return `${k.replace(/[&#]/g, '')}=x`;
          }
        })
        .join('&'),
    ),
);

/**
 * A query of the process list: its own parameters and filters (known and unknown fields,
 * matchers, hostile values), repeated at will, encoded as the SDKs encode them (a colon as is or
 * as %3A).
 */
export const listQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'limit',
        'offset',
        'order',
        'fields',
        'total',
        'q',
        'status',
        'type',
        'action',
        'identifier',
        'createdDate',
        'detailStatus',
        'secret',
        '',
      ),
      fc.option(fc.constantFrom('eq', 'ne', 'in', 'like', 'gt', 'gte', 'lt', 'lte', 'null', 'not_null', 'not_in', 'between', '', 'gt:lt'), {
        nil: undefined,
      }),
      fc.oneof(
        fc.constantFrom(
          'RUNNING',
          'COMPLETED,FAILED',
          '*',
          '**a*',
          '2026-11-21',
          '2026-11-21T00:00:00Z',
          'SSL_REQUIRES_ATTENTION',
          'pendingfoa',
          '0',
          '100',
          '101',
          '-1',
          '10000',
          '10001',
          'id',
          '-createdDate',
          'id,status',
          'true',
          'demo-shop.nl',
          '',
        ),
        hostileString.filter((s) => s.length < 300),
      ),
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((params) =>
    params
      .map(([field, matcher, value, encodeColon]) => {
        const name = matcher === undefined ? field : `${field}${encodeColon ? '%3A' : ':'}${matcher}`;
        try {
          return `${name}=${encodeURIComponent(value)}`;
        } catch {
          return `${name}=x`;
        }
      })
      .join('&'),
  );

/** Methods, as sent (API Gateway passes any token through to the `ANY` fallback). */
export const method: fc.Arbitrary<string> = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'get',
  'post',
  'Post',
  'PROPFIND',
  'FOO',
  'X'.repeat(40),
);

/** Header sets: content types, accept, conditional and idempotency headers, odd authorizations. */
export const headers: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'Content-Type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=latin1',
      'text/plain',
      'application/jsonx',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      'application/json, text/plain',
      '*/*',
      'application/problem+json',
    ),
    Accept: fc.constantFrom(
      'application/json',
      'text/dns',
      'text/plain',
      '*/*',
      'text/*',
      '',
      'application/xml',
      'text/dns;q=0, */*;q=0',
      'garbage;;;q=x',
      'text/dns, application/json;q=0.1',
    ),
    'If-None-Match': fc.constantFrom('*', '"x"', 'W/"x"', '', '"', ',,,', '"a", "b"'),
    'Idempotency-Key': fc.oneof(
      fc.constantFrom('', ' ', 'k', 'key with space', 'ü', 'x'.repeat(256), 'x'.repeat(255), '\u0001'),
      fc.uuid(),
    ),
    Authorization: fc.constantFrom(
      'ApiKey demo-key',
      'ApiKey other-key',
      'apikey demo-key',
      'ApiKey  demo-key',
      'Bearer demo-key',
      'ApiKey',
      'ApiKey ',
      'ApiKey demo-key ',
      'ApiKey unknown-key',
      `ApiKey ${'a'.repeat(257)}`,
      'ApiKey de\u0000mo',
      'Basic ZGVtbzprZXk=',
    ),
    'X-Forwarded-For': fc.constantFrom('127.0.0.1', '1.1.1.1, 2.2.2.2', ''),
    'Content-Length': fc.constantFrom('0', '-1', '99999999', 'abc'),
  },
  { requiredKeys: [] },
);

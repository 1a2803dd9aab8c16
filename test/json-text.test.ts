import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../shared/http/json-text.ts';

/** shared/http/json-text.ts: JSON.parse for request bodies, out of reach of V8's escaped-key bug. */

describe('parseJsonText', () => {
  it('reads back every JSON text as written, keys with escapes of every kind included', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('\\', '"', '\n', '\u0000', 'i\\', '__proto__', '1', '\ud800'));
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(key, tie('node'), { maxKeys: 5 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        expect(JSON.stringify(parseJsonText(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps JSON.parse semantics: the last of duplicate keys wins in the first place, whitespace anywhere, keys only before a colon', () => {
    expect(parseJsonText('{ "a\\u0062" : 1 , "c" : "d\\":", "ab":2 }')).toEqual({ ab: 2, c: 'd":' });
    expect(Object.keys(parseJsonText('{"\\u0062":1,"a":2,"b":3}') as object)).toEqual(['b', 'a']);
    expect(parseJsonText('[{"\\\\":["x:",{"\\n":true}]}]')).toEqual([{ '\\': ['x:', { '\n': true }] }]);
  });

  it('throws SyntaxError where JSON.parse does', () => {
    for (const text of ['{"\\x":1}', '{"\\u00":1}', '{"a\\":1}', '{"\\\\":}', '["\\\\":1]', '{"\\\\":1']) {
      expect(() => parseJsonText(text), text).toThrow(SyntaxError);
    }
  });
});

/**
 * JSON.parse without V8's escaped-key bug. From Node 24 on, V8 decodes an escaped object key
 * through a map transition an earlier parse left behind when the raw text matches its start: after
 * one body had the key `i\` (`"i\\"`), a later body's key `"i\u0064"` ("id") reads back as `i\`
 * (nodejs/node#63785, open; found by the fuzz suite). One caller's body could so change how another
 * caller's body is read. V8 never gets to see an escaped key here: a text whose keys hold a
 * backslash has every key replaced by a plain placeholder before JSON.parse, and the keys, decoded
 * on their own as string values (which the bug does not touch), are put back afterwards.
 */

const quote = 0x22;
const backslash = 0x5c;
/** JSON's whitespace: space, tab, line feed, carriage return. */
const whitespace = new Set([0x20, 0x09, 0x0a, 0x0d]);

interface KeyToken {
  start: number;
  end: number;
}

/** The object keys of a JSON text, as the positions of their string tokens (quotes included); undefined when none holds a backslash. */
function escapedKeys(text: string): KeyToken[] | undefined {
  const keys: KeyToken[] = [];
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== quote) continue;
    const start = i;
    let hasEscape = false;
    for (i++; i < text.length && text.charCodeAt(i) !== quote; i++) {
      if (text.charCodeAt(i) === backslash) {
        hasEscape = true;
        i++;
      }
    }
    let next = i + 1;
    while (next < text.length && whitespace.has(text.charCodeAt(next))) next++;
    if (text.charAt(next) !== ':') continue;
    keys.push({ start, end: i + 1 });
    escaped ||= hasEscape;
  }
  return escaped ? keys : undefined;
}

/** Puts the decoded keys back in place of their placeholders (`#0`, `#1`, ...), keeping order, at any depth. */
export function restoreKeys(value: unknown, names: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => restoreKeys(item, names));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [placeholder, item] of Object.entries(value)) {
    const name = names[Number(placeholder.slice(1))] as string;
    // A plain property even for `__proto__`, as JSON.parse makes it; the body guard refuses that key later.
    Object.defineProperty(out, name, { value: restoreKeys(item, names), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A JSON text V8 may parse safely: the text itself when no key holds a backslash, else the text
 * with every key replaced by a placeholder and the keys, decoded on their own as string values
 * (which the bug does not touch), to put back with restoreKeys once parsed. Throws SyntaxError
 * for a key that is not a valid JSON string, as JSON.parse would.
 */
export function plainKeys(text: string): { text: string; names?: string[] } {
  const keys = escapedKeys(text);
  if (!keys) return { text };
  const names: string[] = [];
  let plain = '';
  let from = 0;
  for (const { start, end } of keys) {
    names.push(JSON.parse(text.slice(start, end)) as string);
    plain += `${text.slice(from, start)}"#${names.length - 1}"`;
    from = end;
  }
  return { text: plain + text.slice(from), names };
}

/** JSON.parse of a request body, immune to the escaped-key bug; throws SyntaxError as JSON.parse does. */
export function parseJsonText(text: string): unknown {
  const plain = plainKeys(text);
  const parsed = JSON.parse(plain.text);
  return plain.names ? restoreKeys(parsed, plain.names) : parsed;
}

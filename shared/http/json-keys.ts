/**
 * The first key given twice in one object of a JSON text, found by one linear scan (strings
 * skipped, keys decoded only where they hold an escape), or undefined. JSON.parse keeps the last
 * of duplicate keys and other parsers the first, so a body with one could be read one way by a
 * proxy and another way here: such bodies are refused (RFC 8259 section 4: names SHOULD be
 * unique; RFC 7493, I-JSON: MUST). The text must already have parsed as JSON.
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far of an object, undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) open.push(new Set());
    else if (c === 0x5b) open.push(undefined);
    else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) {
          escaped = true;
          i++;
        }
      }
      let next = i + 1;
      while (next < text.length && (text[next] === ' ' || text[next] === '\t' || text[next] === '\n' || text[next] === '\r')) next++;
      const keys = open[open.length - 1];
      if (text[next] !== ':' || keys === undefined) continue;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (keys.has(key)) return key;
      keys.add(key);
    }
  }
  return undefined;
}

import { isIPv4, isIPv6 } from 'node:net';
import * as v from 'valibot';
import { ZoneRecordEntry } from './zone.ts';

/**
 * Each record checked by its type before it is written (templates, dataset loads, provisioning,
 * DCV appends: every write path of shared/db/repositories/zone-writes.ts and infra/dataset.ts), so
 * the zone file can never carry a line or directive that was not a record (issue 18 item 8). Plain
 * functions over tokens, no backtracking patterns: the checks run in time linear in the content.
 */

/** The most characters a record's content may have (a 4096-bit DKIM key is about 750). */
export const maxContentLength = 4096;
/** The largest TTL RFC 2181 (section 8) allows. */
const maxTtl = 2_147_483_647;

/** True when the text holds a C0 control character (CR, LF, TAB, NUL, ...) or DEL. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const labelCharacters = /^[A-Za-z0-9_-]+$/;
const placeholder = '##domain##';

/** One label of a DNS name: letters, digits, `_` and inner `-`, at most 63 characters; or the `##DOMAIN##` placeholder. */
function isLabel(label: string): boolean {
  if (label.toLowerCase() === placeholder) return true;
  return label.length <= 63 && labelCharacters.test(label) && !label.startsWith('-') && !label.endsWith('-');
}

/** A DNS name as stored (fully qualified, trailing dot optional); `*` as the first label only where `wildcard`. */
export function isDnsName(name: string, wildcard = false): boolean {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  if (bare === '' || bare.length > 253) return false;
  const labels = bare.split('.');
  return labels.every((label, i) => (wildcard && i === 0 && label === '*') || isLabel(label));
}

/** A host name in content, or `.` where a record may name no host (null MX, SRV "no service"). */
const isTarget = (text: string, rootAllowed: boolean) => (rootAllowed && text === '.') || isDnsName(text);

const isUint = (text: string | undefined, max: number) => text !== undefined && /^\d{1,10}$/.test(text) && Number(text) <= max;
const isHex = (text: string) => text.length > 0 && text.length % 2 === 0 && /^[0-9A-Fa-f]+$/.test(text);
const isBase64 = (text: string) => text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text);
const isMnemonicOrUint = (text: string | undefined, max: number) =>
  isUint(text, max) || (text !== undefined && /^[A-Z][A-Z0-9-]{0,15}$/.test(text));

/**
 * The tokens of RDATA in presentation form: whitespace-separated words and quoted
 * character-strings (with `\"` and `\\` inside). Undefined when a quote is left open.
 */
export function rdataTokens(content: string): { text: string; quoted: boolean }[] | undefined {
  const tokens: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < content.length) {
    const c = content[i] as string;
    if (c === ' ') {
      i++;
      continue;
    }
    if (c === '"') {
      let text = '';
      i++;
      while (i < content.length && content[i] !== '"') {
        if (content[i] === '\\' && i + 1 < content.length) i++;
        text += content[i];
        i++;
      }
      if (i >= content.length) return undefined;
      tokens.push({ text, quoted: true });
      i++;
      continue;
    }
    const end = content.indexOf(' ', i);
    const word = content.slice(i, end < 0 ? content.length : end);
    if (word.includes('"')) return undefined;
    tokens.push({ text: word, quoted: false });
    i += word.length;
  }
  return tokens;
}

/** The CAA property tags of the IANA registry (RFC 8659, 8657, 9495): a name server serves others, but no authority reads them. */
const caaTags: ReadonlySet<string> = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone', 'issuemail', 'issuevmc']);

const isDecimal = (text: string | undefined, max: number) =>
  text !== undefined && /^\d{1,3}(\.\d{1,3})?$/.test(text) && Number(text) <= max;
const isMeters = (text: string | undefined, min: number, max: number) =>
  text !== undefined &&
  /^-?\d{1,8}(\.\d{1,2})?m?$/.test(text) &&
  Number(text.replace(/m$/, '')) >= min &&
  Number(text.replace(/m$/, '')) <= max;

/** One half of a LOC position: degrees [minutes [seconds]] then the hemisphere; the words it took, or 0. */
function locHalf(w: string[], at: number, maxDegrees: number, hemispheres: string): number {
  let i = at;
  if (!isUint(w[i], maxDegrees)) return 0;
  i++;
  if (isUint(w[i], 59)) {
    i++;
    if (isDecimal(w[i], 59.999)) i++;
  }
  return hemispheres.includes(w[i] ?? '') && (w[i] ?? '').length === 1 ? i + 1 - at : 0;
}

/** RFC 1876 presentation form: latitude, longitude, altitude, then at most size and two precisions. */
function isLoc(w: string[]): boolean {
  const lat = locHalf(w, 0, 90, 'NS');
  if (!lat) return false;
  const lon = locHalf(w, lat, 180, 'EW');
  if (!lon) return false;
  const rest = w.slice(lat + lon);
  return (
    rest.length >= 1 && rest.length <= 4 && isMeters(rest[0], -100000, 42849672.95) && rest.slice(1).every((x) => isMeters(x, 0, 90000000))
  );
}

type Check = (words: string[], tokens: { text: string; quoted: boolean }[], content: string) => string | undefined;

const words =
  (n: number, what: string, test: (w: string[]) => boolean): Check =>
  (w) =>
    w.length === n && test(w) ? undefined : `must be ${what}`;

/** Per type: what its content must be (contract 3.6 types, in their presentation form). */
const contentChecks: Record<ZoneRecordEntry['type'], Check> = {
  A: (_, __, c) => (isIPv4(c) ? undefined : 'must be an IPv4 address'),
  // A scope (`fe80::1%eth0`) names an interface of one host, not an address DNS can serve.
  AAAA: (_, __, c) => (isIPv6(c) && !c.includes('%') ? undefined : 'must be an IPv6 address'),
  ALIAS: words(1, 'a host name', ([h]) => isTarget(h as string, false)),
  CNAME: words(1, 'a host name', ([h]) => isTarget(h as string, false)),
  NS: words(1, 'a host name', ([h]) => isTarget(h as string, false)),
  MX: words(1, 'a host name (or `.`)', ([h]) => isTarget(h as string, true)),
  SRV: words(3, '`weight port target`', ([w, p, t]) => isUint(w, 65535) && isUint(p, 65535) && isTarget(t as string, true)),
  TXT: () => undefined,
  CAA: (w, t) =>
    t.length === 3 && isUint(w[0], 255) && caaTags.has((t[1]?.text ?? '').toLowerCase()) && !t[0]?.quoted && !t[1]?.quoted
      ? undefined
      : `must be \`flags tag value\` with a tag of ${[...caaTags].join(', ')} (e.g. \`0 issue "sectigo.com"\`)`,
  DS: words(
    4,
    '`key-tag algorithm digest-type digest`',
    ([k, a, d, h]) => isUint(k, 65535) && isUint(a, 255) && isUint(d, 255) && isHex(h as string),
  ),
  DNSKEY: (w) =>
    w.length >= 4 && isUint(w[0], 65535) && isUint(w[1], 255) && isUint(w[2], 255) && isBase64(w.slice(3).join(''))
      ? undefined
      : 'must be `flags protocol algorithm public-key`',
  CERT: (w) =>
    w.length >= 4 && isMnemonicOrUint(w[0], 65535) && isUint(w[1], 65535) && isMnemonicOrUint(w[2], 255) && isBase64(w.slice(3).join(''))
      ? undefined
      : 'must be `type key-tag algorithm certificate`',
  TLSA: (w) =>
    w.length >= 4 && isUint(w[0], 255) && isUint(w[1], 255) && isUint(w[2], 255) && isHex(w.slice(3).join(''))
      ? undefined
      : 'must be `usage selector matching-type data`',
  SSHFP: words(3, '`algorithm type fingerprint`', ([a, t, h]) => isUint(a, 255) && isUint(t, 255) && isHex(h as string)),
  HINFO: (_, t) => (t.length === 2 ? undefined : 'must be two character-strings: `"cpu" "os"`'),
  NAPTR: (_, t) =>
    t.length === 6 &&
    isUint(t[0]?.text, 65535) &&
    isUint(t[1]?.text, 65535) &&
    t.slice(2, 5).every((s) => s.quoted) &&
    isTarget(t[5]?.text ?? '', true)
      ? undefined
      : 'must be `order preference "flags" "services" "regexp" replacement`',
  URI: (_, t) =>
    t.length === 3 && isUint(t[0]?.text, 65535) && isUint(t[1]?.text, 65535) && t[2]?.quoted
      ? undefined
      : 'must be `priority weight "target"`',
  LOC: (w) => (isLoc(w) ? undefined : 'must be a LOC position (`52 22 23.000 N 4 53 32.000 E -2.00m`, RFC 1876)'),
  SOA: words(
    7,
    '`primary mailbox serial refresh retry expire minimum`',
    ([m, r, ...n]) => isTarget(m as string, false) && isDnsName(r as string) && n.every((x) => isUint(x, 4_294_967_295)),
  ),
  URL: words(1, 'an http or https URL', ([u]) => /^https?:\/\/[^\s]+$/.test(u as string) && URL.canParse(u as string)),
  // A mail forward: `local -> target@example.com` (or the target alone, for the whole domain).
  MBOXFW: (w) =>
    (w.length === 1 || (w.length === 3 && w[1] === '->' && /^[^\s@]+$/.test(w[0] as string))) &&
    /^[^\s@]+@[^\s@]+$/.test(w[w.length - 1] as string)
      ? undefined
      : 'must be `local -> address@example.com` or an e-mail address',
};

/** What is wrong with a record for its type, or undefined when it may be written. */
export function zoneRecordProblem(record: ZoneRecordEntry): string | undefined {
  if (hasControlCharacter(record.name)) return 'name: must not hold control characters (CR, LF, TAB, ...)';
  if (!isDnsName(record.name, true)) return 'name: must be a DNS name (letters, digits, `_`, `-`, a leading `*`, `##DOMAIN##`)';
  if (record.ttl > maxTtl) return `ttl: must be at most ${maxTtl}`;
  const content = record.content.trim();
  if (hasControlCharacter(record.content)) return 'content: must not hold control characters (CR, LF, TAB, ...)';
  if (content.length > maxContentLength) return `content: must be at most ${maxContentLength} characters`;
  // TXT content is plain text (empty too: one empty character-string); the zone-file writer quotes and escapes it whole.
  if (record.type === 'TXT') return undefined;
  if (content === '') return 'content: must not be empty';
  const tokens = rdataTokens(content.replace(/ +/g, ' '));
  if (!tokens) return 'content: has a quote that is never closed';
  // Outside quoted strings these start a comment or a multi-line group in a zone file (a URL is written as a comment line).
  if (record.type !== 'URL' && tokens.some((t) => !t.quoted && /[();\\]/.test(t.text))) {
    return 'content: has `(`, `)`, `;` or `\\` outside a quoted string';
  }
  const problem = contentChecks[record.type](
    tokens.map((t) => t.text),
    tokens,
    content,
  );
  return problem && `content: ${problem} for a ${record.type} record`;
}

/** A record as every write path takes it: its shape, then its content by type. */
export const ValidZoneRecordEntry = v.pipe(
  ZoneRecordEntry,
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = zoneRecordProblem(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
);

/** RFC 1876 presentation in full, as name servers print it (PowerDNS refuses any other spelling of a LOC). */
function canonicalLoc(content: string): string {
  const w = content.trim().split(/ +/);
  const half = (at: number): { text: string; next: number } | undefined => {
    const parts: number[] = [];
    let i = at;
    while (i < w.length && parts.length < 3 && /^\d+(\.\d+)?$/.test(w[i] as string)) parts.push(Number(w[i++]));
    const hemisphere = w[i];
    if (parts.length === 0 || hemisphere === undefined || !/^[NSEW]$/.test(hemisphere)) return undefined;
    const [d = 0, m = 0, s = 0] = parts;
    return { text: `${d} ${m} ${s.toFixed(3)} ${hemisphere}`, next: i + 1 };
  };
  const lat = half(0);
  const lon = lat && half(lat.next);
  if (!lat || !lon) return content;
  const meters = w.slice(lon.next).map((x) => Number(x.replace(/m$/, '')));
  if (meters.length < 1 || meters.some((x) => !Number.isFinite(x))) return content;
  const [alt = 0, size = 1, horizontal = 10000, vertical = 10] = meters;
  return `${lat.text} ${lon.text} ${[alt, size, horizontal, vertical].map((x) => `${x.toFixed(2)}m`).join(' ')}`;
}

/** Types whose data ends in hex a name server prints in lower case. */
const hexTypes: ReadonlySet<string> = new Set(['DS', 'TLSA', 'SSHFP']);

/**
 * A record's content in the one spelling a name server prints it in, where it has several: an IPv6
 * address compressed (RFC 5952), hex in lower case, a LOC in full, a CAA value quoted. PowerDNS
 * refuses other spellings ("Not in expected format"), so the zone API stores this one (the zone
 * then reads back as it is served). Anything it cannot read is left as it is, for the checks to refuse.
 */
export function canonicalContent(type: string, content: string): string {
  const text = content.trim().replace(/ +/g, ' ');
  if (type === 'AAAA' && isIPv6(text) && !text.includes('%')) return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  if (hexTypes.has(type)) {
    const words = text.split(' ');
    const fixed = type === 'SSHFP' ? 2 : 3;
    return words.length > fixed ? [...words.slice(0, fixed), words.slice(fixed).join('').toLowerCase()].join(' ') : text;
  }
  if (type === 'LOC') return canonicalLoc(text);
  if (type === 'CAA') {
    const tokens = rdataTokens(text);
    if (tokens?.length === 3 && !tokens[2]?.quoted && !tokens[0]?.quoted && !tokens[1]?.quoted) {
      return `${tokens[0]?.text} ${tokens[1]?.text.toLowerCase()} "${tokens[2]?.text}"`;
    }
    if (tokens?.length === 3 && tokens[2]?.quoted)
      return `${tokens[0]?.text} ${tokens[1]?.text.toLowerCase()} ${text.slice(text.indexOf('"'))}`;
  }
  return text;
}

import { parseXml, XmlElement, XmlError } from '@rgrove/parse-xml';
import * as v from 'valibot';
import type { RateRecord } from '../model/rate.ts';

/**
 * The European Central Bank's daily euro foreign exchange reference rates (eurofxref-daily.xml):
 * a gesmes envelope holding `<Cube><Cube time="yyyy-mm-dd"><Cube currency="USD" rate="1.1523"/>...`.
 * Parsing is all or nothing: one malformed entry rejects the whole document, so a partial or zero
 * rate is never stored.
 */

/** The ECB's public URL of the daily rates (override with `ECB_RATES_URL`). */
export const defaultEcbRatesUrl = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/** Currencies the service converts to; a document without them is incomplete. */
export const requiredCurrencies = ['USD'] as const;

/** One day's euro reference rates as read: its date (`yyyy-mm-dd`) and 1 EUR = rates[X] X. */
export type DailyRates = Pick<RateRecord, 'date' | 'rates'>;

/** Why a fetched document was refused. */
export class RatesDocumentError extends Error {
  override name = 'RatesDocumentError';
}

const Rate = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{1,9}(?:\.\d{1,10})?$/, 'rate must be a positive decimal number'),
  v.transform(Number),
  v.number(),
  v.finite(),
  v.gtValue(0, 'rate must be above zero'),
  // The largest euro reference rate is about 20,000 (IDR); a million is no rate.
  v.maxValue(1_000_000, 'rate must be at most 1000000'),
);

const Entry = v.object({
  currency: v.pipe(v.string(), v.trim(), v.regex(/^[A-Z]{3}$/, 'currency must be a three-letter ISO 4217 code')),
  rate: Rate,
});

const ReferenceDate = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'time must be yyyy-mm-dd'),
  v.check(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'time is not a calendar date',
  ),
);

const Day = v.object({
  time: ReferenceDate,
  Cube: v.pipe(v.array(Entry), v.minLength(1, 'the day lists no rates')),
});

const Document = v.object({
  Envelope: v.object({
    Cube: v.pipe(
      v.array(v.object({ Cube: v.pipe(v.array(Day), v.length(1, 'expected exactly one day of rates')) })),
      v.length(1, 'expected one outer Cube'),
    ),
  }),
});

/** The plain data the schema checks: an element is its trimmed text, or its attributes and child elements. */
type Tree = string | { [name: string]: Tree | Tree[] };

/** The name without its namespace prefix (`gesmes:Envelope` is `Envelope`). */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/**
 * An element as plain data: with neither attributes nor child elements, its trimmed text; else an
 * object of its attributes (namespace declarations left out) and its child elements by local name,
 * each name holding a list. Attribute values stay strings: the rate's decimal digits are validated
 * before they become numbers.
 */
function toTree(element: XmlElement): Tree {
  const attributes = Object.entries(element.attributes).filter(([name]) => name !== 'xmlns' && !name.startsWith('xmlns:'));
  const children = element.children.filter((child) => child instanceof XmlElement);
  if (attributes.length === 0 && children.length === 0) return element.text.trim();
  const lists = new Map<string, Tree[]>();
  for (const child of children) {
    const name = localName(child.name);
    const list = lists.get(name);
    if (list) list.push(toTree(child));
    else lists.set(name, [toTree(child)]);
  }
  // Own properties only (no prototype setter); a child element named like an attribute replaces
  // it, and the schema then refuses the list.
  return Object.fromEntries([...attributes.map(([name, value]) => [localName(name), value] as const), ...lists]);
}

/**
 * Reads the document with a conforming XML parser: anything not well-formed is refused (a
 * truncated document, a second root element, a stray `&`). Entities declared in a DOCTYPE are
 * never expanded and external ones never fetched: a reference to one is an undefined entity, which
 * refuses the document. Character references (`&#46;`) and the five predefined entities are read
 * as the characters they stand for, as XML requires.
 */
function readXml(xml: string): Tree {
  try {
    const root = parseXml(xml).root as XmlElement;
    return { [localName(root.name)]: toTree(root) };
  } catch (error) {
    if (error instanceof XmlError) throw new RatesDocumentError(`Not well-formed XML: ${error.message.split('\n')[0]}`);
    // The parser descends one call per element: nesting deep enough to exhaust the stack is refused too.
    if (error instanceof RangeError) throw new RatesDocumentError('The XML is nested too deeply to read');
    throw error;
  }
}

/** Parses and checks the ECB daily XML; throws RatesDocumentError for anything incomplete or malformed. */
export function parseEcbDaily(xml: string, today: Date = new Date()): DailyRates {
  const parsed = v.safeParse(Document, readXml(xml));
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new RatesDocumentError(`Not an ECB daily rates document: ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
  }
  const day = parsed.output.Envelope.Cube[0]?.Cube[0] as v.InferOutput<typeof Day>;
  // The ECB never publishes ahead; a date after tomorrow (any time zone) means a broken feed.
  if (Date.parse(`${day.time}T00:00:00Z`) > today.getTime() + 86_400_000) {
    throw new RatesDocumentError(`The rates are dated ${day.time}, in the future`);
  }
  const rates: Record<string, number> = {};
  for (const entry of day.Cube) {
    if (entry.currency === 'EUR') throw new RatesDocumentError('The document lists a EUR rate against the euro');
    if (entry.currency in rates) throw new RatesDocumentError(`The document lists ${entry.currency} twice`);
    rates[entry.currency] = entry.rate;
  }
  const missing = requiredCurrencies.filter((c) => !(c in rates));
  if (missing.length > 0) throw new RatesDocumentError(`The document lacks the ${missing.join(', ')} rate`);
  return { date: day.time, rates };
}

/** The most bytes a rates document may have: the ECB's is about 1.5 KB. */
export const maxRatesBytes = 64 * 1024;

/**
 * Fetches the daily XML: time-limited; redirects refused (a 3xx is an error, never followed, so the
 * fetch cannot be sent elsewhere); the body streamed and given up as soon as it passes `maxBytes`
 * (a declared Content-Length above it is refused before reading). Throws on a network error or
 * any answer but 200.
 */
export async function fetchEcbDaily(url: string, timeoutMs = 10_000, maxBytes = maxRatesBytes): Promise<string> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { Accept: 'application/xml, text/xml' },
    redirect: 'manual',
  });
  const refuse = async (reason: string): Promise<never> => {
    await response.body?.cancel();
    throw new RatesDocumentError(reason);
  };
  if (response.status >= 300 && response.status < 400)
    await refuse(`The rates URL answered HTTP ${response.status}; redirects are not followed`);
  if (response.status !== 200) await refuse(`The rates URL answered HTTP ${response.status}`);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) await refuse(`The rates document is larger than ${maxBytes} bytes`);
  return readCapped(response, maxBytes);
}

/** The body as text, read chunk by chunk and abandoned past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new RatesDocumentError(`The rates document is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** How far one rate may move from one published day to the next: by a factor of 1.5 (up 50%, down a third). */
export const maxDailyMove = 1.5;

/**
 * Why a day's rates are not plausible against the newest day stored before (undefined when they
 * are): a currency both days list that moved by more than `maxDailyMove`. The ECB's reference
 * rates move by a few percent on the worst days; a larger move is a broken or forged feed, and
 * storing it would reprice every converted price list. Refused, the job fails and alarms; the
 * last good rates stay in force.
 */
export function implausibleMove(daily: DailyRates, previous: DailyRates | undefined): string | undefined {
  if (!previous || previous.date === daily.date) return undefined;
  for (const [currency, rate] of Object.entries(daily.rates)) {
    const before = previous.rates[currency];
    if (before === undefined) continue;
    const factor = rate / before;
    if (factor > maxDailyMove || factor < 1 / maxDailyMove) {
      return `${currency} moved from ${before} on ${previous.date} to ${rate} on ${daily.date}, by more than a factor of ${maxDailyMove}`;
    }
  }
  return undefined;
}

import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import {
  raisePriceListVersion,
  readPriceSnapshot,
  type StoredPriceSnapshot,
  storePriceSnapshot,
} from '../db/repositories/price-snapshots.ts';
import { getPriceList } from '../db/repositories/prices.ts';
import type { PriceRecord, PromoRecord } from '../model/price.ts';
import { now, toWireTime } from '../time.ts';
import { byProductActionDate, currentPrices, openPromos, type PriceList, scheduledPriceChanges } from './price-list.ts';
import type { PriceEntry, PriceListBody, PromoEntry } from './price-list-view.ts';

/**
 * The price list as answered, kept serialized and compressed (docs/pricelist-and-zones.md,
 * "Snapshot"). A full registry list has about 60,000 entries: read item by item (11 MB, 11 Query
 * pages), built, serialized and compressed on every request, it took seconds, and more than the
 * function's budget on the first request. The snapshot holds the JSON body gzipped and in Brotli
 * (about 330 KB and 120 KB for those 60,000 entries): a request reads it in one Query of a few
 * items and sends the coding the client asked for as it is.
 *
 * Freshness: every write of a customer's prices or promos raises the list's version
 * (`putPrice`, `putPromo`); a snapshot built at another version is stale: never served, the
 * request reads the list whole as before, answers from it and stores the new snapshot. The dataset
 * loader and the migration rebuild the snapshots of the lists they write (`refreshPriceSnapshot`),
 * so the first request after a load is fast. A snapshot past its `validUntil` (the first scheduled
 * price change or promo end after it was built) is not served either: the answer of now follows
 * from it alone (`priceListLater`), so that request rebuilds it without reading the list.
 */

/**
 * Brotli quality of the stored body, as the API's own (shared/http/encoding.ts): on the
 * 60,000-entry list 4 gives within 2 % of the bytes of 9 in a fifth of its time (docs/performance.md),
 * and a stale request rebuilds the snapshot within its budget.
 */
const brotliQuality = 4;

/** The price list body, serialized and in the two codings the API answers with. */
export interface SerializedPriceList {
  /** The JSON body's length in bytes. */
  bytes: number;
  /** SHA-256 of the JSON body, base64url. */
  sha256: string;
  gzip: Buffer;
  br: Buffer;
  /** The JSON body (decompressed on demand when stored). */
  text(): string;
}

const priceEntry = (p: PriceRecord): PriceEntry => ({
  product: p.product,
  action: p.action,
  currency: p.currency,
  price: p.price,
  fromDate: p.fromDate,
});
const promoEntry = (p: PromoRecord): PromoEntry => ({ ...priceEntry(p), endDate: p.endDate, active: p.active });

/** The list as answered at `at`: current prices, scheduled changes, promos not yet over (contract 3.5). */
export function priceListAt(stored: PriceList, at: Date): PriceListBody {
  return {
    prices: currentPrices(stored, at).map(priceEntry),
    priceChanges: scheduledPriceChanges(stored, at).map(priceEntry),
    promos: openPromos(stored, at).map(promoEntry),
  };
}

/**
 * The first instant after `at` at which the list answers otherwise: a scheduled price takes effect
 * (it leaves `priceChanges` for `prices`), or a promo ends (it leaves `promos`). Undefined when
 * nothing is scheduled: the answer then holds until the list is written.
 */
export function answerChangesAt(
  stored: { prices: readonly { fromDate: string }[]; promos: readonly { endDate: string }[] },
  at: Date,
): string | undefined {
  const now = toWireTime(at);
  let first: string | undefined;
  for (const p of stored.prices) if (p.fromDate > now && (first === undefined || p.fromDate < first)) first = p.fromDate;
  for (const p of stored.promos) if (p.endDate > now && (first === undefined || p.endDate < first)) first = p.endDate;
  return first;
}

/**
 * The answer at `at` from the answer at an earlier instant, when only time has passed: the
 * scheduled prices due by `at` take over their product and action, the promos over by `at` go.
 * The same as `priceListAt` over the whole list: a price that was not current at the earlier
 * instant was superseded by one that still is, or is due later.
 */
export function priceListLater(body: PriceListBody, at: Date): PriceListBody {
  const now = toWireTime(at);
  const current = new Map(body.prices.map((p) => [`${p.product}\u0000${p.action}`, p]));
  for (const change of body.priceChanges) {
    if (change.fromDate > now) continue;
    const key = `${change.product}\u0000${change.action}`;
    const held = current.get(key);
    if (!held || change.fromDate > held.fromDate) current.set(key, change);
  }
  return {
    prices: [...current.values()].sort(byProductActionDate),
    priceChanges: body.priceChanges.filter((p) => p.fromDate > now),
    promos: body.promos.filter((p) => p.endDate > now),
  };
}

/** When an answer changes after `at` (as `answerChangesAt`, from the answer itself). */
function bodyChangesAt(body: PriceListBody, at: Date): string | undefined {
  return answerChangesAt({ prices: body.priceChanges, promos: body.promos }, at);
}

function serialize(body: PriceListBody): SerializedPriceList {
  const text = JSON.stringify(body);
  const plain = Buffer.from(text, 'utf8');
  return {
    bytes: plain.length,
    sha256: createHash('sha256').update(text).digest('base64url'),
    gzip: gzipSync(plain),
    br: brotliCompressSync(plain, {
      params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length },
    }),
    text: () => text,
  };
}

/** The customer's list as answered now: from its snapshot when that is current, else read whole (and the snapshot stored). */
export interface PriceListNow {
  serialized: SerializedPriceList;
  /** Parses the body (for a conversion). */
  body(): PriceListBody;
  /** How it was answered: from the snapshot, or by reading the whole list (and storing a new snapshot). */
  source: 'snapshot' | 'list';
}

/**
 * The customer's price list as answered at `at`: the stored snapshot when it is of the list's
 * current version and still valid at `at`; past its validity, the answer of `at` derived from it;
 * of another version (or none, or with a part missing), the list read whole as before snapshots.
 * A new answer is stored as the snapshot for the next request (unless a concurrent write or build
 * got there first).
 */
export async function priceListNow(customer: string, at: Date): Promise<PriceListNow> {
  const seen = await readPriceSnapshot(customer);
  const built = seen.head.built;
  if (!built || !seen.bytes || built.version !== seen.head.version) {
    const { body, serialized } = await rebuild(customer, seen, at, async () => {
      const stored = await getPriceList(customer);
      return { body: priceListAt(stored, at), changesAt: answerChangesAt(stored, at) };
    });
    return { serialized, body: () => body, source: 'list' };
  }
  const gzip = seen.bytes.subarray(0, built.gzipBytes);
  let text: string | undefined;
  const textOf = () => {
    text ??= gunzipSync(gzip).toString('utf8');
    return text;
  };
  const parsed = () => JSON.parse(textOf()) as PriceListBody;
  if (built.validUntil !== undefined && toWireTime(at) >= built.validUntil) {
    // Only time has passed since it was built: the answer now follows from it, without reading the list.
    const { body, serialized } = await rebuild(customer, seen, at, async () => {
      const later = priceListLater(parsed(), at);
      return { body: later, changesAt: bodyChangesAt(later, at) };
    });
    return { serialized, body: () => body, source: 'snapshot' };
  }
  const serialized = { bytes: built.bytes, sha256: built.sha256, gzip, br: seen.bytes.subarray(built.gzipBytes), text: textOf };
  return { serialized, body: parsed, source: 'snapshot' };
}

/** Builds the answer at `at` and stores it as the snapshot (if no newer write or build won). */
async function rebuild(
  customer: string,
  seen: StoredPriceSnapshot,
  at: Date,
  answer: () => Promise<{ body: PriceListBody; changesAt: string | undefined }>,
) {
  const { body, changesAt } = await answer();
  const serialized = serialize(body);
  const switched = await storePriceSnapshot(
    customer,
    seen,
    {
      version: seen.head.version,
      builtAt: toWireTime(at),
      ...(changesAt === undefined ? {} : { validUntil: changesAt }),
      bytes: serialized.bytes,
      sha256: serialized.sha256,
      gzipBytes: serialized.gzip.length,
      brBytes: serialized.br.length,
    },
    Buffer.concat([serialized.gzip, serialized.br]),
  );
  return { body, serialized, stored: switched };
}

/**
 * Rebuilds a customer's snapshot from its list as it is now, after a bulk write of its prices that
 * did not raise the list's version item by item (the dataset loader, the migration): raises it,
 * then builds. Retried when a concurrent write or build wins the switch.
 */
export async function refreshPriceSnapshot(customer: string): Promise<void> {
  await raisePriceListVersion(customer);
  for (let attempt = 0; attempt < 5; attempt++) {
    const at = now();
    const seen = await readPriceSnapshot(customer);
    const built = await rebuild(customer, seen, at, async () => {
      const stored = await getPriceList(customer);
      return { body: priceListAt(stored, at), changesAt: answerChangesAt(stored, at) };
    });
    if (built.stored) return;
  }
  throw new Error(`The price list snapshot of '${customer}' could not be stored: its list kept changing.`);
}

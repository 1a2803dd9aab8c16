import * as v from 'valibot';
import { Handle, WireTime } from '../schemas/primitives.ts';

/**
 * A customer's price list as the price list GET answers it, kept serialized and compressed so that
 * a request reads a few items instead of the whole list (shared/pricing/price-list-snapshot.ts).
 *
 * The snapshot in force: its generation (the parts written for it), the version of the list it was
 * built from, and until when it holds (the first scheduled price change or promo end after it was
 * built: from then on the list answers otherwise). Its bytes are the JSON body gzipped, then the
 * same body in Brotli, cut into parts of at most `priceSnapshotPartBytes`.
 */
export const PriceSnapshotBuilt = v.object({
  /** The list's version it was built from: stale as soon as the head's `version` differs. */
  version: v.pipe(v.number(), v.integer(), v.minValue(0)),
  generation: v.string(),
  builtAt: WireTime,
  /** The first instant at which the list answers otherwise (a price change takes effect, a promo ends); none: it holds until the list changes. */
  validUntil: v.optional(WireTime),
  parts: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** The JSON body's length in bytes. */
  bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** SHA-256 of the JSON body, base64url. */
  sha256: v.string(),
  gzipBytes: v.pipe(v.number(), v.integer(), v.minValue(1)),
  brBytes: v.pipe(v.number(), v.integer(), v.minValue(1)),
});
export type PriceSnapshotBuilt = v.InferOutput<typeof PriceSnapshotBuilt>;

/**
 * The head of a customer's snapshot: `version` is raised by every write of the customer's prices
 * or promos (none yet: 0); `built` is the snapshot in force, switched in one conditional write.
 */
export const PriceSnapshotHead = v.object({
  customer: Handle,
  version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  built: v.optional(PriceSnapshotBuilt),
});
export type PriceSnapshotHead = v.InferOutput<typeof PriceSnapshotHead>;

/** A part of a snapshot's bytes (DynamoDB's items hold at most 400 KB). */
export const priceSnapshotPartBytes = 350 * 1024;

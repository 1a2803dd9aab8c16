import { putItem, toItem } from '../items.ts';
import { keys } from '../keys.ts';

/** The single use of a one-time validation-manager link, by its nonce (the item expires with the link). */

/**
 * Records that a link was used, unless it was before (a conditional write: a second use, even a
 * concurrent one, finds the first). True for the first use. `expiresAt`: the link's expiry, epoch seconds.
 */
export function recordOneTimeLinkUse(nonce: string, processId: number, usedAt: Date, expiresAt: number): Promise<boolean> {
  return putItem(toItem(keys.oneTimeLinkUse(nonce), 'oneTimeLinkUse', { processId, usedAt: usedAt.toISOString(), expiresAt }), true);
}

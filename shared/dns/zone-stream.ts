import { logger } from '../logger.ts';
import type { DnsProvider } from './provider.ts';
import { syncZone } from './sync.ts';

/**
 * The zone sync fed by the table's stream: which zones a batch of stream records changed, each
 * synced once per batch (syncZone reads the zone as it is now, so the last record of a zone in a
 * batch is the one that counts), in the order the stream gave them.
 *
 * On the first zone whose push fails for a passing reason, the batch stops and reports the first
 * record of that zone as failed: Lambda (and the local stream reader) then hands back that record
 * and every one after it, so nothing after a failure is lost and nothing before it is repeated.
 * Records of other items than zone headers are ignored.
 */

/** What the sync reads of one stream record: its keys and its sequence number (Lambda's item identifier). */
export interface ZoneStreamRecord {
  keys: { pk?: string; sk?: string };
  sequenceNumber: string;
}

/** The zone header's sort key (shared/db/keys.ts `zoneByName`); every zone write changes that item. */
const zoneHeaderSk = 'ZONE';
const domainPrefix = 'DOMAIN#';

/** The zones the records changed, in order of first appearance, with the sequence number of each one's first record. */
export function changedZones(records: readonly ZoneStreamRecord[]): { domainName: string; firstSequenceNumber: string }[] {
  const zones = new Map<string, string>();
  for (const record of records) {
    const { pk, sk } = record.keys;
    if (sk !== zoneHeaderSk || !pk?.startsWith(domainPrefix)) continue;
    const domainName = pk.slice(domainPrefix.length);
    if (!zones.has(domainName)) zones.set(domainName, record.sequenceNumber);
  }
  return [...zones].map(([domainName, firstSequenceNumber]) => ({ domainName, firstSequenceNumber }));
}

/** Syncs the zones of one batch; the sequence numbers to hand back (none when all went well). */
export async function syncZonesOfBatch(provider: DnsProvider, records: readonly ZoneStreamRecord[]): Promise<string[]> {
  for (const { domainName, firstSequenceNumber } of changedZones(records)) {
    try {
      await syncZone(provider, domainName);
    } catch (error) {
      logger.warn('zone sync failed; the stream hands the zone back', { domainName, error: error as Error });
      return [firstSequenceNumber];
    }
  }
  return [];
}

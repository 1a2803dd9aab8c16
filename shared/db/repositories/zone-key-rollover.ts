import type { ProcessRecord } from '../../model/process.ts';
import type { ZoneKeyRollover } from '../../model/zone.ts';
import { tableName } from '../table.ts';
import { putNew, type TransactItem } from '../transactions.ts';
import { countedOf } from './process-counts.ts';
import { changedProcessItems, newProcessItems, processItem } from './processes.ts';
import { setZoneKeyRollover, type ZoneWriteRefusal } from './zone-writes.ts';
import type { ZoneHead } from './zones.ts';

/**
 * The writes of a zone's key rollover (shared/dns/key-rollover.ts): each is one transaction of the
 * zone's header (its `keyRollover`, its revision raised, so the DNS sync takes the step) and the
 * rollover's process. 'changed' when the zone changed since it was read: nothing was written.
 */

/** A rollover begins: the header in its `publish` stage and the new process (RUNNING, waiting for the DS). */
export function recordKeyRolloverStarted(
  head: ZoneHead,
  rollover: ZoneKeyRollover,
  process: ProcessRecord,
  along: readonly TransactItem[],
): Promise<ZoneWriteRefusal | undefined> {
  return setZoneKeyRollover(head, rollover, [putNew(processItem(process)), ...newProcessItems(process), ...along]);
}

/** The DS is acknowledged: the header in its `retire` stage and the process completed, over the process as it was read. */
export function recordDsAcknowledged(
  head: ZoneHead,
  rollover: ZoneKeyRollover,
  before: ProcessRecord,
  after: ProcessRecord,
  along: readonly TransactItem[],
): Promise<ZoneWriteRefusal | undefined> {
  return setZoneKeyRollover(head, rollover, [
    {
      Put: {
        TableName: tableName(),
        Item: processItem(after),
        ConditionExpression: 'updatedDate = :was AND #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':was': before.updatedDate, ':status': before.status },
      },
    },
    ...changedProcessItems(countedOf(before), after),
    ...along,
  ]);
}

/**
 * The items of a zone write's charge (shared/dns/premium-charge.ts): its process, COMPLETED, with its
 * listing and counts, for the transaction of the zone write itself.
 */
export function zoneChargeItems(process: ProcessRecord): TransactItem[] {
  return [putNew(processItem(process)), ...newProcessItems(process)];
}

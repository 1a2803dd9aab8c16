import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { assembleZone, parseZoneHead, zoneEntity } from '../shared/db/repositories/zones.ts';
import { forEachLimited } from './dataset.ts';
import { scanTable } from './export.ts';

/**
 * `npm run admin -- migrate`: brings a table written by an earlier version to the current layout.
 * Idempotent: a second run finds nothing to do. Safe while the service runs (every step is a
 * write the service itself makes, and the read path takes both layouts meanwhile).
 *
 * - Zones stored with their records inline in one item (bounded by DynamoDB's 400 KB item size)
 *   are rewritten as a header item and one item per record, through the same write as any zone
 *   (shared/db/repositories/zone-writes.ts): the new records first, then the header switched to
 *   them in one conditional write, which fails if the zone changed meanwhile (it is then written
 *   again from the zone as it now is).
 */

/** What a migration found and did. */
export interface MigrationReport {
  zonesInline: number;
  zonesMigrated: number;
}

/** Finds what is in an earlier layout (a Scan: an operator command, not a request path) and migrates it, or with `dryRun` only counts it. */
export async function migrateTable(options: { dryRun?: boolean; onZone?: (domainName: string, records: number) => void } = {}) {
  const legacy = (await scanTable()).filter((item) => item.entity === zoneEntity && item.generation === undefined);
  const report: MigrationReport = { zonesInline: legacy.length, zonesMigrated: 0 };
  if (options.dryRun) return report;
  await forEachLimited(legacy, 4, async (item) => {
    const zone = assembleZone(parseZoneHead(item), []);
    if (!zone) throw new Error(`Cannot read the inline zone ${String(item.pk)}`);
    await putZone(zone);
    report.zonesMigrated++;
    options.onZone?.(zone.domainName, zone.records.length);
  });
  return report;
}

/**
 * Section 1 of `npm run bench` (bench/run.ts; alone: bench/round-trips-only.ts): the DynamoDB calls
 * of each request (bench/scenarios.ts), and the zone GETs' reads before and after they moved to the
 * owner's partitions (by name in gsi3, by id in gsi2), counted in the same run.
 */
import { quietly, table } from './report.ts';
import { countAllRoundTrips, zoneReadsBeforeAfter } from './scenarios.ts';

const mark = (ok: boolean) => (ok ? 'ok' : 'OVER');

/** Prints the round trips of every scenario and the zone read's before and after. */
export async function benchRoundTrips(): Promise<void> {
  const trips = await quietly(countAllRoundTrips);
  table(
    'Round trips: DynamoDB calls per request (warm API key; counted at the SDK client)',
    ['request', 'status', 'calls', 'own data', 'idempotency', 'registry', 'items read', 'budget', '', 'calls in order'],
    trips.map((t) => [
      t.name,
      t.status ?? '-',
      t.total,
      t.own,
      t.idempotency,
      t.registry,
      t.read,
      t.budget.kind === 'exactly' ? `= ${t.budget.calls} in all` : t.budget.kind === 'own-at-most' ? `own <= ${t.budget.calls}` : 'no Scan',
      mark(t.withinBudget),
      t.commands.join(' '),
    ]),
    ['calls in order'],
  );
  const scans = trips.reduce((n, t) => n + t.scans, 0);
  console.log(`\nScan calls in all of the above: ${scans} (budget 0) ${mark(scans === 0)}`);

  // The zone GETs' reads before (the table's terms) and after (the caller's partitions), in this run.
  const zoneReads = await quietly(zoneReadsBeforeAfter);
  // The caller's own zone: one call. Another customer's: the calls of a missing one (by name, by id).
  const missing = (route: string) => zoneReads.find((z) => z.case.startsWith(route) && z.case.includes('missing'));
  table(
    'Zone GETs, before and after: DynamoDB calls and items read (ScannedCount) per read',
    ['case', 'calls before', 'items read before', 'calls after', 'items read after', 'budget', ''],
    zoneReads.map((z) => [
      z.case,
      z.before.calls,
      z.before.read,
      z.after.calls,
      z.after.read,
      z.case.includes("demo's own") ? '1 call' : 'calls of a missing one',
      mark(z.case.includes("demo's own") ? z.after.calls === 1 : z.after.calls === missing(z.case.slice(0, 6))?.after.calls),
    ]),
  );
}

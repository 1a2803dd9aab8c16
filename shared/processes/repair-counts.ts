import { type Counted, countedOf, readProcessCounts, writeProcessCounts } from '../db/repositories/process-counts.ts';
import { type ProcessCursor, readProcessPage } from '../db/repositories/processes.ts';

/**
 * Repairs a customer's process counts (shared/db/repositories/process-counts.ts) when they have
 * drifted from the processes (a write that bypassed the repositories, a restore, a bug): reads the
 * shards' versions, then every process of the customer (its listing, 1,000 a Query), and replaces
 * each shard whose version did not move meanwhile. A shard a process write raced is done again,
 * up to `rounds` times. The listing is an index, so a process written in the last moment before
 * the repair may not show yet: run the repair again if processes were being written.
 */

/** What a repair found and did. */
export interface CountRepair {
  customer: string;
  processes: number;
  /** The counts before and after, where they differ (`all`, `status:RUNNING`, ...). */
  changed: Record<string, { before: number; after: number }>;
  rounds: number;
}

export async function repairProcessCounts(customer: string, rounds = 5): Promise<CountRepair> {
  for (let round = 1; round <= rounds; round++) {
    const before = await readProcessCounts(customer, true);
    const processes: Counted[] = [];
    let start: ProcessCursor | undefined;
    do {
      const page = await readProcessPage(customer, { index: 'all' }, { limit: 1_000, ascending: true, ...(start ? { start } : {}) });
      processes.push(...page.processes.map(countedOf));
      start = page.next;
    } while (start);
    const raced = await writeProcessCounts(customer, processes, before.versions);
    if (raced.length > 0) continue;
    const after = (await readProcessCounts(customer, true)).counts;
    const changed: CountRepair['changed'] = {};
    for (const name of [...new Set([...before.counts.keys(), ...after.keys()])].sort()) {
      const was = before.counts.get(name) ?? 0;
      const now = after.get(name) ?? 0;
      if (was !== now) changed[name] = { before: was, after: now };
    }
    return { customer, processes: processes.length, changed, rounds: round };
  }
  throw new Error(
    `The process counts of ${customer} kept changing during ${rounds} repairs; run the repair again when fewer processes are written`,
  );
}

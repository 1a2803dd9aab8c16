import { listCustomerHandles } from '../db/repositories/customers.ts';
import {
  type CountRepairState,
  countedOf,
  countInto,
  emptyShardCounts,
  readCountRepairState,
  readProcessCounts,
  summed,
  writeCountRepairState,
  writeProcessCounts,
} from '../db/repositories/process-counts.ts';
import { markProcessPositions, type ProcessCursor, readProcessPage, rebuildProcessBlocks } from '../db/repositories/processes.ts';

/**
 * Repairs a customer's process counts (shared/db/repositories/process-counts.ts) when they have
 * drifted from the processes (a write that bypassed the repositories, a restore, a bug): reads the
 * shards' versions, then every process of the customer (its listing, 1,000 a Query), and replaces
 * each shard whose version did not move meanwhile. A shard a process write raced is done again,
 * up to `rounds` times. The listing is an index, so a process written in the last moment before
 * the repair may not show yet: run the repair again if processes were being written.
 *
 * `npm run admin -- repair-counts` repairs one customer at once (repairProcessCounts); the
 * scheduled job (functions/repair-counts) goes through every customer a bounded piece at a time
 * (repairCountsPass).
 */

/** The counts before and after, where they differ (`all`, `status:RUNNING`, ...). */
export type CountChanges = Record<string, { before: number; after: number }>;

/** What a repair found and did. */
export interface CountRepair {
  customer: string;
  processes: number;
  changed: CountChanges;
  rounds: number;
}

/** Where two sets of counts differ. */
function changesOf(before: Map<string, number>, after: Map<string, number>): CountChanges {
  const changed: CountChanges = {};
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(name) ?? 0;
    const now = after.get(name) ?? 0;
    if (was !== now) changed[name] = { before: was, after: now };
  }
  return changed;
}

/** Most processes one listing Query reads. */
const pageSize = 1_000;

export async function repairProcessCounts(customer: string, rounds = 5): Promise<CountRepair> {
  for (let round = 1; round <= rounds; round++) {
    const before = await readProcessCounts(customer, true);
    const shards = emptyShardCounts();
    let processes = 0;
    let start: ProcessCursor | undefined;
    do {
      const page = await readProcessPage(customer, { index: 'all' }, { limit: pageSize, ascending: true, ...(start ? { start } : {}) });
      countInto(shards, page.processes.map(countedOf));
      processes += page.processes.length;
      start = page.next;
    } while (start);
    const raced = await writeProcessCounts(customer, shards, before.versions);
    if (raced.length > 0) continue;
    const after = (await readProcessCounts(customer, true)).counts;
    const changed = changesOf(before.counts, after);
    await markProcessPositions(customer, { afresh: 'all' in changed });
    // The status listings' blocks, afresh (process-blocks.ts).
    await rebuildProcessBlocks(customer, { afresh: true });
    return { customer, processes, changed, rounds: round };
  }
  throw new Error(
    `The process counts of ${customer} kept changing during ${rounds} repairs; run the repair again when fewer processes are written`,
  );
}

/** What one pass of the scheduled repair did. */
export interface CountRepairPass {
  /** Customers whose counts were checked (and rewritten) in this pass. */
  customers: number;
  /** Processes read. */
  processes: number;
  /** The customers whose counts had drifted, and how. */
  drifted: { customer: string; changed: CountChanges }[];
  /** Customers counted again because a process write raced the repair. */
  raced: number;
  /** True when the pass reached the last customer (the next pass starts again from the first). */
  wrapped: boolean;
  /** The customer the next pass goes on with, part-counted (absent: it starts a customer afresh). */
  inProgress?: string;
}

/**
 * One pass of the scheduled count repair: goes on from where the last pass stopped (the job's
 * state item), counting the customers' processes in handle order, and reads at most `maxRead`
 * processes (and starts no Query after `deadline`), so a pass is bounded whatever the size of the
 * accounts: a customer larger than one pass is counted over several, its partial counts kept in
 * the state. When a customer's listing is read to its end and its counts differ from what was
 * counted, its shards are replaced where no process write moved them since its count began (a
 * raced customer is counted again). Customers
 * are found by key (their gsi1 listing), never by Scan. After the last customer it starts again
 * from the first on the next pass.
 */
export async function repairCountsPass(options: { maxRead: number; deadline: number }): Promise<CountRepairPass> {
  const state: CountRepairState = await readCountRepairState();
  const pass: CountRepairPass = { customers: 0, processes: 0, drifted: [], raced: 0, wrapped: false };
  while (pass.processes < options.maxRead && Date.now() < options.deadline) {
    if (!state.current) {
      const [customer] = await listCustomerHandles(state.after, 1);
      if (customer === undefined) {
        pass.wrapped = true;
        delete state.after;
        break;
      }
      const before = await readProcessCounts(customer, true);
      state.current = {
        customer,
        versions: before.versions,
        before: Object.fromEntries(before.counts),
        counted: emptyShardCounts(),
        processes: 0,
      };
    }
    const current = state.current;
    const page = await readProcessPage(
      current.customer,
      { index: 'all' },
      {
        limit: Math.min(pageSize, options.maxRead - pass.processes),
        ascending: true,
        ...(current.cursor ? { start: current.cursor } : {}),
      },
    );
    countInto(current.counted, page.processes.map(countedOf));
    current.processes += page.processes.length;
    pass.processes += page.processes.length;
    if (page.next) {
      current.cursor = page.next;
      continue;
    }
    const changed = changesOf(new Map(Object.entries(current.before)), summed(current.counted));
    // Counts that agree are left alone (a customer without processes gets no count items).
    if (Object.keys(changed).length > 0) {
      const raced = await writeProcessCounts(current.customer, current.counted, current.versions);
      if (raced.length > 0) {
        // A process write moved a shard since this customer's count began: count it again.
        pass.raced++;
        delete state.current;
        continue;
      }
      pass.drifted.push({ customer: current.customer, changed });
    }
    // The listing's marks for deep offsets, from the last one on. Where processes went or moved
    // (the count of all drifted), `npm run admin -- repair-counts` makes them afresh.
    await markProcessPositions(current.customer, { deadline: options.deadline });
    // The status listings' blocks, where they no longer add up to the counts.
    await rebuildProcessBlocks(current.customer);
    pass.customers++;
    state.after = current.customer;
    delete state.current;
  }
  if (state.current) pass.inProgress = state.current.customer;
  await writeCountRepairState(state);
  return pass;
}

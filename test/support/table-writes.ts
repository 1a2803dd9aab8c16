import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { tableName } from '../../shared/db/table.ts';

/**
 * What the service wrote to the table: a middleware on the shared client (the SDK boundary) that
 * records the item keys of every write command that succeeded. Used by the hardening tests to
 * prove that a refused request changed nothing, without a full table scan per request.
 */

/** One successful write: the command and the `pk#sk` of each item it put, updated or deleted. */
export interface TableWrite {
  command: string;
  keys: string[];
}

type Attr = unknown;

/** `pk#sk` of a key or item, marshalled (`{S: ...}`) or not. */
function keyOf(item: Record<string, Attr> | undefined): string {
  const plain = (a: Attr) => (a && typeof a === 'object' && 'S' in (a as object) ? (a as { S: string }).S : String(a));
  return `${plain(item?.pk)}#${plain(item?.sk)}`;
}

function writtenKeys(command: string, input: Record<string, any>): string[] | undefined {
  if (/^Put(Item)?Command$/.test(command)) return [keyOf(input.Item)];
  if (/^(Update|Delete)(Item)?Command$/.test(command)) return [keyOf(input.Key)];
  if (/^TransactWrite(Items)?Command$/.test(command)) {
    return (input.TransactItems as Record<string, any>[]).flatMap((t) =>
      t.Put ? [keyOf(t.Put.Item)] : t.Update ? [keyOf(t.Update.Key)] : t.Delete ? [keyOf(t.Delete.Key)] : [],
    );
  }
  if (/^BatchWrite(Item)?Command$/.test(command)) {
    return Object.values(input.RequestItems as Record<string, Record<string, any>[]>)
      .flat()
      .map((r) => keyOf(r.PutRequest ? r.PutRequest.Item : r.DeleteRequest.Key));
  }
  return undefined;
}

/** Starts recording successful writes; `stop()` removes the middleware. */
export function recordWrites(): { writes: TableWrite[]; take(): TableWrite[]; stop(): void } {
  const writes: TableWrite[] = [];
  const name = `record-writes-${crypto.randomUUID()}`;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      const keys = writtenKeys(command, args.input as Record<string, any>);
      const out = await next(args);
      if (keys) writes.push({ command, keys });
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    writes,
    take: () => writes.splice(0, writes.length),
    stop: () => client.middlewareStack.remove(name),
  };
}

/** Every item of the table, by `pk#sk` (a few hundred items in a test table: one paged Scan). */
export async function snapshotTable(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) out.set(keyOf(item), canonical(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** JSON with object keys in sorted order, so equal items compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Set) return canonical([...value].sort());
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** The `pk#sk` of every item added, changed or removed between two snapshots. */
export function changedKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}

/**
 * Keys of zone record items that no zone header names (`ZONE#<generation>#...` of a generation
 * other than the header's): what a zone write left when it stopped before its header switch (or
 * could not tell whether its transaction committed). No reader sees them, and the zone's next
 * write removes them (shared/db/repositories/zone-writes.ts).
 */
export function unnamedZoneRecords(snapshot: Map<string, string>): Set<string> {
  const named = new Set<string>();
  for (const text of snapshot.values()) {
    const item = JSON.parse(text) as { entity?: string; pk?: string; generation?: string };
    if (item.entity === 'zone' && item.generation) named.add(`${item.pk}#ZONE#${item.generation}#`);
  }
  const out = new Set<string>();
  for (const [key, text] of snapshot) {
    if ((JSON.parse(text) as { entity?: string }).entity !== 'zoneRecord') continue;
    if (![...named].some((prefix) => key.startsWith(prefix))) out.add(key);
  }
  return out;
}

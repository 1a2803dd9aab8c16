import { db } from '../../shared/db/client.ts';
import { table } from '../../shared/db/table.ts';

/** One DynamoDB call as the SDK client saw it: the command and the partitions it names. */
export interface TableCall {
  command: string;
  /** Partition keys named by the input (`Key`, `Item`, `Keys`, transaction items, `:pk` of a Query). */
  partitions: string[];
  /**
   * Items the call read, as the table charges them: a GetItem 1, a BatchGetItem each key it asked
   * for (found or not), a Query each item it examined (`ScannedCount`, filtered out or not); 0 for writes.
   */
  itemsRead: number;
  /** Items the call answered (`Item`, `Items`, `Responses`), as the function received them. */
  itemsAnswered: number;
  /** The size of the items answered, as JSON (what a call returned, not what the table charged for). */
  bytesAnswered: number;
  /** The command's input, as sent. */
  input: Record<string, unknown>;
}

/** What a call read and answered, from its input and output. */
function reads(command: string, input: unknown, output: unknown): { itemsRead: number; itemsAnswered: number; bytesAnswered: number } {
  const out = (output ?? {}) as { Item?: unknown; Items?: unknown[]; ScannedCount?: number; Responses?: Record<string, unknown[]> };
  const answered = (out.Item ? 1 : 0) + (out.Items?.length ?? 0) + Object.values(out.Responses ?? {}).reduce((n, r) => n + r.length, 0);
  const bytesAnswered = [out.Item, out.Items, out.Responses].reduce<number>(
    (n, part) => n + (part === undefined ? 0 : Buffer.byteLength(JSON.stringify(part))),
    0,
  );
  const answer = { itemsAnswered: answered, bytesAnswered };
  if (command.startsWith('GetItem') || command.startsWith('GetCommand')) return { itemsRead: 1, ...answer };
  if (command.startsWith('BatchGet')) {
    const requested = Object.values((input as { RequestItems?: Record<string, { Keys?: unknown[] }> }).RequestItems ?? {});
    return { itemsRead: requested.reduce((n, r) => n + (r.Keys?.length ?? 0), 0), ...answer };
  }
  if (command.startsWith('Query')) return { itemsRead: out.ScannedCount ?? 0, ...answer };
  return { itemsRead: 0, ...answer };
}

/**
 * The table's indexes that do not hold whole items: keys only (gsi1keys, gsi2keys) or keys and a
 * few small attributes (gsi1list): an entry read there is an index entry, not an item.
 */
const entryIndexes = new Set<string>(table.globalSecondaryIndexes.filter((g) => g.projection !== 'ALL').map((g) => g.indexName));

/** Whether a call read index entries only (a Query of a keys-only or INCLUDE index). */
export function readsEntries(call: Pick<TableCall, 'command' | 'input'>): boolean {
  return call.command.startsWith('Query') && entryIndexes.has(String(call.input.IndexName));
}

/** The whole items the calls read: every item read but the entries of keys-only and INCLUDE indexes. */
export function fullItemsRead(calls: readonly TableCall[]): number {
  return calls.reduce((n, d) => n + (readsEntries(d) ? 0 : d.itemsRead), 0);
}

/** A partition key as the document client (`'X'`) or a marshalled command (`{S: 'X'}`) carries it. */
function keyValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { S?: unknown }).S === 'string') return (value as { S: string }).S;
  return undefined;
}

/** Every `pk` / `:pk` value anywhere in a command's input, in order. */
function partitionsOf(input: unknown, out: string[] = []): string[] {
  if (Array.isArray(input)) {
    for (const item of input) partitionsOf(item, out);
  } else if (input && typeof input === 'object') {
    for (const [k, val] of Object.entries(input)) {
      const key = k === 'pk' || k === ':pk' ? keyValue(val) : undefined;
      if (key !== undefined) out.push(key);
      else partitionsOf(val, out);
    }
  }
  return out;
}

/**
 * Runs `fn` and records every DynamoDB call made meanwhile, by command name (`QueryCommand`,
 * `GetCommand`, ...), through a middleware on the shared client: the SDK boundary, no mocks.
 * `details` adds the partitions each call names, so callers can tell whose data a call reads.
 */
export async function recordTableCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: string[]; details: TableCall[] }> {
  const details: TableCall[] = [];
  const name = `record-calls-${crypto.randomUUID()}`;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const call: TableCall = {
        command: String(context.commandName),
        partitions: partitionsOf(args.input),
        itemsRead: 0,
        itemsAnswered: 0,
        bytesAnswered: 0,
        input: args.input as Record<string, unknown>,
      };
      details.push(call);
      const result = await next(args);
      Object.assign(call, reads(call.command, args.input, result.output));
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    const result = await fn();
    return { result, calls: details.map((d) => d.command), details };
  } finally {
    client.middlewareStack.remove(name);
  }
}

/**
 * Runs `before` (and waits for it) just before the first DynamoDB call that `matches` is sent: a
 * deterministic interleaving of two writers at the SDK boundary (the call itself then goes on as
 * usual). Calls `before` makes are not matched. Answers the function that removes the hook.
 */
export function beforeFirstCall(matches: (command: string, partitions: string[]) => boolean, before: () => Promise<unknown>): () => void {
  const name = `before-first-${crypto.randomUUID()}`;
  let fired = false;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!fired && matches(String(context.commandName), partitionsOf(args.input))) {
        fired = true;
        await before();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}

/**
 * Fails the DynamoDB calls `matches` names (an InternalServerError, as the service answers one),
 * at most `times` times: a table refusing some writes, at the SDK boundary. Answers the function
 * that removes the hook.
 */
export function failCalls(matches: (command: string, partitions: string[]) => boolean, times: number): () => void {
  const name = `fail-${crypto.randomUUID()}`;
  let left = times;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (left > 0 && matches(String(context.commandName), partitionsOf(args.input))) {
        left--;
        throw Object.assign(new Error('injected'), { name: 'InternalServerError', $fault: 'server' });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}

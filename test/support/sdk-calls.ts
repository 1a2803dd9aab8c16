import { db } from '../../shared/db/client.ts';

/** One DynamoDB call as the SDK client saw it: the command and the partitions it names. */
export interface TableCall {
  command: string;
  /** Partition keys named by the input (`Key`, `Item`, `Keys`, transaction items, `:pk` of a Query). */
  partitions: string[];
  /** Items the call read (a Query's scanned count, a GetItem's item, a BatchGet's items); 0 for writes. */
  read: number;
}

/** How many items a call's output says it read. */
function itemsRead(output: unknown): number {
  const o = (output ?? {}) as { ScannedCount?: number; Count?: number; Item?: unknown; Responses?: unknown };
  if (typeof o.ScannedCount === 'number') return o.ScannedCount;
  if (typeof o.Count === 'number') return o.Count;
  if (o.Item !== undefined) return 1;
  if (o.Responses && typeof o.Responses === 'object' && !Array.isArray(o.Responses)) {
    return Object.values(o.Responses as Record<string, unknown[]>).reduce((n, items) => n + (Array.isArray(items) ? items.length : 0), 0);
  }
  return 0;
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
      const call: TableCall = { command: String(context.commandName), partitions: partitionsOf(args.input), read: 0 };
      details.push(call);
      const out = await next(args);
      call.read = itemsRead(out.output);
      return out;
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

import { db } from '../../shared/db/client.ts';

/**
 * Runs `fn` and records every DynamoDB call made meanwhile, by command name (`QueryCommand`,
 * `GetCommand`, ...), through a middleware on the shared client: the SDK boundary, no mocks.
 */
export async function recordTableCalls<T>(fn: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const calls: string[] = [];
  const name = `record-calls-${crypto.randomUUID()}`;
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), calls };
  } finally {
    client.middlewareStack.remove(name);
  }
}

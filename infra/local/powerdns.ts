import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { diesWithParent, freePort, stopChild } from './child-process.ts';
import { ensureDebianPackages } from './debian-packages.ts';

/**
 * A PowerDNS Authoritative server for the sandbox and the tests: Debian's `pdns-server` with its
 * SQLite backend (fetched without root by debian-packages.ts), DNS on a free port of 127.0.0.1,
 * its HTTP API on another, both found by the OS, never fixed.
 */

/** The Debian packages PowerDNS runs from: the server, its SQLite backend and the two libraries Debian 12 lacks by default. */
export const powerDnsPackages = ['pdns-server', 'pdns-backend-sqlite3', 'libluajit-5.1-2', 'libluajit-5.1-common', 'libjemalloc2'];

/** A running PowerDNS and how to reach and stop it. */
export interface LocalPowerDns {
  /** The HTTP API's base URL (`http://127.0.0.1:<port>`); the API is under `/api/v1`. */
  apiUrl: string;
  apiKey: string;
  serverId: string;
  /** DNS on this address and port, UDP and TCP. */
  dnsAddress: string;
  dnsPort: number;
  pid: number;
  /** The configuration folder, for `pdnsutil --config-dir`. */
  configDir: string;
  /** The folder the packages were extracted into, and the library path they run with. */
  root: string;
  libraryPath: string;
  stop(): Promise<void>;
}

export interface PowerDnsOptions {
  /** Keep the zone database in this folder across restarts; a temporary folder, removed on stop, when omitted. */
  dataDir?: string;
  /** The Debian package cache (debian-packages.ts); the project's by default. */
  cacheDir?: string;
}

/** PowerDNS cannot be had or did not start: the one-line reason. */
export class PowerDnsFailed extends Error {}

/** The configuration PowerDNS runs with (the settings docs/dns.md explains). */
function config(o: { root: string; database: string; socketDir: string; dnsPort: number; apiPort: number; apiKey: string }): string {
  return `${[
    'launch=gsqlite3',
    `module-dir=${join(o.root, 'usr/lib/x86_64-linux-gnu/pdns')}`,
    `gsqlite3-database=${o.database}`,
    'gsqlite3-dnssec=yes',
    'gsqlite3-pragma-synchronous=0',
    'local-address=127.0.0.1',
    `local-port=${o.dnsPort}`,
    `socket-dir=${o.socketDir}`,
    'api=yes',
    `api-key=${o.apiKey}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${o.apiPort}`,
    'webserver-allow-from=127.0.0.1',
    'webserver-max-bodysize=16',
    'security-poll-suffix=',
    'default-soa-content=ns1.@ hostmaster.@ 0 10800 3600 604800 3600',
    'distributor-threads=1',
    'receiver-threads=1',
    'loglevel=4',
  ].join('\n')}\n`;
}

/** Creates the SQLite database with the backend's own schema, unless it exists. */
function ensureDatabase(root: string, database: string): void {
  if (existsSync(database)) return;
  const schema = readFileSync(join(root, 'usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql'), 'utf8');
  const db = new DatabaseSync(database);
  try {
    db.exec(schema);
  } finally {
    db.close();
  }
}

/**
 * Starts PowerDNS and waits until its API answers. It runs under `setpriv --pdeathsig`: if this
 * process dies, even by SIGKILL, the kernel sends pdns_server SIGTERM, so none is left behind.
 * A port taken between choosing and binding it is chosen again (up to three times).
 */
export async function startPowerDns(options: PowerDnsOptions = {}): Promise<LocalPowerDns> {
  const { root, libraryPath } = await ensureDebianPackages(powerDnsPackages, options.cacheDir ? { cacheDir: options.cacheDir } : {});
  const binary = join(root, 'usr/sbin/pdns_server');
  if (!existsSync(binary)) throw new PowerDnsFailed(`pdns_server is missing from the extracted package (${binary}).`);
  const temporary = options.dataDir === undefined;
  if (temporary) removeStaleHomes();
  const home = temporary ? mkdtempSync(join(tmpdir(), temporaryPrefix)) : resolve(options.dataDir as string);
  // Whose it is: a start after this process was killed (kill -9 leaves it) removes it (removeStaleHomes).
  if (temporary) writeFileSync(join(home, ownerFile), String(process.pid), { mode: 0o600 });
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(root, libraryPath, binary, home, temporary);
    } catch (error) {
      lastError = error;
      if (!(error instanceof PortTaken)) break;
    }
  }
  if (temporary) rmSync(home, { recursive: true, force: true });
  throw lastError;
}

class PortTaken extends PowerDnsFailed {}

/** A temporary PowerDNS home in the temp folder: `pdns-XXXXXX`, holding the API key in its pdns.conf. */
const temporaryPrefix = 'pdns-';
/** The file naming the process a temporary home belongs to. */
const ownerFile = 'owner.pid';
/** A home without an owner (made before owners were written) is left for a day, then taken as stale. */
const unownedStaleMs = 24 * 3600 * 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary PowerDNS homes that a killed process left (its stop never ran): those whose
 * owner is no longer running, and unowned ones older than a day. A home of a running process (a
 * sandbox or a test run beside this one) is kept.
 */
export function removeStaleHomes(dir: string = tmpdir(), now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(temporaryPrefix) && /^pdns-[A-Za-z0-9]{6}$/.test(name));
  } catch {
    return removed;
  }
  for (const name of names) {
    const home = join(dir, name);
    try {
      const stat = statSync(home);
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
      let stale: boolean;
      try {
        const owner = Number(readFileSync(join(home, ownerFile), 'utf8').trim());
        stale = Number.isInteger(owner) && owner > 0 && owner !== process.pid && !alive(owner);
      } catch {
        stale = now - stat.mtimeMs > unownedStaleMs;
      }
      if (stale) {
        rmSync(home, { recursive: true, force: true });
        removed.push(home);
      }
    } catch {
      // gone meanwhile, or not ours to read: left as it is
    }
  }
  return removed;
}

async function startOnce(root: string, libraryPath: string, binary: string, home: string, temporary: boolean): Promise<LocalPowerDns> {
  const configDir = join(home, 'conf');
  const socketDir = join(home, 'run');
  const database = join(home, 'pdns.sqlite3');
  mkdirSync(configDir, { recursive: true });
  mkdirSync(socketDir, { recursive: true });
  ensureDatabase(root, database);
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const apiKey = randomBytes(24).toString('hex');
  writeFileSync(join(configDir, 'pdns.conf'), config({ root, database, socketDir, dnsPort, apiPort, apiKey }), { mode: 0o600 });

  const serverArgs = [`--config-dir=${configDir}`, '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no'];
  const [command, args] = diesWithParent(binary, serverArgs, 'PowerDNS');
  const child = spawn(command, args, {
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LD_LIBRARY_PATH: [libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const apiUrl = `http://127.0.0.1:${apiPort}`;
  try {
    await waitUntilReady(apiUrl, apiKey, child, () => output);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  return {
    apiUrl,
    apiKey,
    serverId: 'localhost',
    dnsAddress: '127.0.0.1',
    dnsPort,
    pid: child.pid ?? -1,
    configDir,
    root,
    libraryPath,
    stop: async () => {
      await stopChild(child);
      if (temporary) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The last lines of PowerDNS's output that say what went wrong, in one line. */
function failureOf(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /error|fatal|unable|exiting|not|fail/i.test(l));
  return (lines.slice(-2).join(' / ') || output.trim().split('\n').at(-1) || 'no output').slice(0, 400);
}

/** Polls the API until it answers 200; ends at once when pdns_server exits (a taken port is told apart). */
async function waitUntilReady(apiUrl: string, apiKey: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const text = output();
      if (/Address already in use|Unable to bind/i.test(text)) throw new PortTaken(`PowerDNS could not bind its port: ${failureOf(text)}`);
      throw new PowerDnsFailed(`PowerDNS exited during start-up (${child.exitCode ?? child.signalCode}): ${failureOf(text)}`);
    }
    try {
      const response = await fetch(`${apiUrl}/api/v1/servers/localhost`, {
        headers: { 'X-API-Key': apiKey },
        signal: AbortSignal.timeout(2000),
      });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new PowerDnsFailed(`PowerDNS did not answer within 30 s: ${failureOf(output())}`);
}

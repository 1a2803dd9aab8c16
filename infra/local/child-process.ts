import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * What the local engines' launchers share (DynamoDB Local, PowerDNS, Pebble): a free port, a child
 * that dies with its launcher, and a stop that does not hang.
 */

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
 * The command line that runs `binary` with `args` under a parent-death signal (util-linux
 * `setpriv --pdeathsig`): if the launcher dies, even by SIGKILL, the kernel sends the child SIGTERM
 * and it exits by itself, so none is left behind. Without setpriv, the plain command and a warning
 * naming `what`.
 */
export function diesWithParent(binary: string, args: readonly string[], what: string): [string, string[]] {
  if (existsSync('/usr/bin/setpriv') || existsSync('/bin/setpriv')) return ['setpriv', ['--pdeathsig', 'TERM', '--', binary, ...args]];
  console.warn(`warning: setpriv (util-linux) not found; ${what} will not stop by itself if this process is killed.`);
  return [binary, [...args]];
}

/** `signal` (SIGTERM: a clean shutdown), then SIGKILL after 5 s; resolves when the process is gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill(signal);
  });
}

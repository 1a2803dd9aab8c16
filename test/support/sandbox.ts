import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `npm start` as a process: the launcher itself, started with the same Node and tsx. */
export interface Launcher {
  child: ChildProcess;
  url: string;
  dynamoEndpoint?: string;
  readyLine: string;
  output: () => string;
}

/** The launcher's command line (`npm start -- ...args`, minus npm), on a free port unless `args` names one. */
export function launcherArgs(args: string[]): string[] {
  return ['--import', 'tsx', 'infra/local/start.ts', ...(args.includes('--port') ? [] : ['--port', '0']), ...args];
}

/**
 * The environment of a launcher: no test table or endpoint of ours, logs at WARN, and the file that
 * tells the admin CLI where it listens in a place of this run's (never the shared default).
 */
export function launcherEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DYNAMODB_ENDPOINT: undefined,
    TABLE_NAME: undefined,
    POWERTOOLS_LOG_LEVEL: 'WARN',
    LOCAL_SERVER_FILE: join(tmpdir(), `registrar-test-${process.pid}-${++launches}-local-server.json`),
    ...env,
  };
}
let launches = 0;

/**
 * Starts the sandbox and resolves with its ready line. With `detached`, the launcher leads a
 * process group of its own (DynamoDB Local's java included), so the whole group can be killed.
 */
export function launch(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: { detached?: boolean; started?: ChildProcess[]; readyWithinMs?: number } = {},
): Promise<Launcher> {
  const child = spawn(process.execPath, launcherArgs(args), {
    env: launcherEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  options.started?.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const readyWithinMs = options.readyWithinMs ?? 60_000;
    const timer = setTimeout(() => reject(new Error(`no ready line within ${readyWithinMs / 1000} s:\n${output}`)), readyWithinMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Registrar API sandbox ready on (http:\/\/\S+)\/v2 \(([^\n]*)\)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve({
          child,
          url: ready[1] as string,
          dynamoEndpoint: /DynamoDB Local on (http:\/\/[\d.:]+)/.exec(ready[2] as string)?.[1],
          readyLine: ready[0],
          output: () => output,
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`launcher exited (${code}):\n${output}`));
    });
  });
}

/** Resolves with the exit code once the process has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** True once no process of the group `pgid` is left (polls up to `ms`). */
export async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (liveMembers(pgid) === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The processes of a group that still run, from /proc: a zombie (`Z`, exited and waiting to be
 * reaped by whoever inherited it, such as tsx's esbuild service once node is gone) runs nothing
 * and holds nothing, so it does not count.
 */
function liveMembers(pgid: number): number {
  let live = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp ...: the command may hold spaces and parentheses, so read after the last ')'.
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') live++;
  }
  return live;
}

/** True once nothing answers at `endpoint` any more (polls up to `ms`). */
export async function goneWithin(endpoint: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(500) });
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** A running `npm start` (the launcher itself, started with the same Node and tsx). */
interface Launcher {
  child: ChildProcess;
  url: string;
  dynamoEndpoint?: string;
  readyLine: string;
  output: () => string;
}

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function launch(args: string[], env: Record<string, string | undefined> = {}): Promise<Launcher> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--port', '0', ...args], {
    env: { ...process.env, DYNAMODB_ENDPOINT: undefined, TABLE_NAME: undefined, POWERTOOLS_LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 60 s:\n${output}`)), 60_000);
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

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** True once nothing answers at `endpoint` any more (polls up to `ms`). */
async function goneWithin(endpoint: string, ms: number): Promise<boolean> {
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

const providerInfo = (url: string, key = 'demo-key') =>
  fetch(`${url}/v2/providers/REGISTRY/sidn/info`, { headers: { Authorization: `ApiKey ${key}` } });

// Each test starts the sandbox as a process (java included), some twice: minutes on a loaded machine, not seconds.
describe('npm start (local sandbox)', { timeout: 90_000 }, () => {
  it('serves the API on HTTP with demo data, and Ctrl-C stops it and its DynamoDB Local', async () => {
    const sandbox = await launch([]);
    expect(sandbox.readyLine).toMatch(/in memory; demo data: \d+ items written, 0 already present/);
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
  });

  it('leaves no DynamoDB Local behind when the launcher is killed with SIGKILL', async () => {
    const sandbox = await launch([]);
    expect(await goneWithin(sandbox.dynamoEndpoint as string, 300)).toBe(false);
    sandbox.child.kill('SIGKILL');
    await exited(sandbox.child);
    expect(await goneWithin(sandbox.dynamoEndpoint as string, 10_000)).toBe(true);
  });

  it('keeps data across restarts with --data-dir, loading the demo data only once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
    const first = await launch(['--data-dir', dataDir]);
    expect(first.readyLine).toMatch(new RegExp(`data in ${dataDir}; demo data: \\d+ items written, 0 already present`));
    first.child.kill('SIGTERM');
    await exited(first.child);
    const second = await launch([], { DATA_DIR: dataDir });
    expect(second.readyLine).toMatch(/demo data: 0 items written, \d+ already present/);
    expect((await providerInfo(second.url)).status).toBe(200);
    second.child.kill('SIGTERM');
    await exited(second.child);
  });

  it('uses DYNAMODB_ENDPOINT instead of starting an engine, and --no-seed skips the demo data', async () => {
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    const table = `sandbox-${Date.now()}`;
    const bare = await launch(['--no-seed'], { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table });
    expect(bare.readyLine).toContain(`table '${table}' created; DynamoDB at ${endpoint}; demo data not loaded`);
    expect((await providerInfo(bare.url)).status).toBe(401);
    bare.child.kill('SIGTERM');
    await exited(bare.child);
    const seeded = await launch([], { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: table });
    expect(seeded.readyLine).toContain(`table '${table}'; DynamoDB at ${endpoint}; demo data:`);
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

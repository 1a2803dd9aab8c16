import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { demoDataFile, loadDataset, readDatasetFile } from '../infra/dataset.ts';
import { exportDataset, notExported, scanTable } from '../infra/export.ts';
import { ensureTable } from '../infra/local/ensure-table.ts';
import { usageKeyName } from '../infra/usage-plan-keys.ts';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { readCountRepairState, readProcessCounts } from '../shared/db/repositories/process-counts.ts';
import { getRegistrationLock, listDueRegistrations } from '../shared/db/repositories/registrations.ts';
import { repairCountsPass } from '../shared/processes/repair-counts.ts';
import { call, demoKey, otherKey } from './support/api.ts';

const run = promisify(execFile);

/** Runs the admin CLI as a separate process against `table` (default: this file's table). */
async function admin(
  args: string[],
  table = process.env.TABLE_NAME as string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'infra/admin.ts', ...args], { env: { ...process.env, TABLE_NAME: table, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs `fn` against another table (tableName() reads TABLE_NAME on every call). */
async function onTable<T>(table: string, fn: () => Promise<T>): Promise<T> {
  const own = process.env.TABLE_NAME;
  process.env.TABLE_NAME = table;
  try {
    return await fn();
  } finally {
    process.env.TABLE_NAME = own;
  }
}

/**
 * The table's items as comparable text, without the ones an export leaves out on purpose. A zone's
 * generation is a random name chosen by each write, so it reads as `<generation>` here (the
 * records under it must still be the same, position by position).
 */
async function items(table: string): Promise<string[]> {
  const all = await onTable(table, () => scanTable());
  const generations = new Set(all.filter((i) => i.entity === 'zone').map((i) => String(i.generation)));
  const plain = (value: unknown) =>
    typeof value === 'string' && value.startsWith('ZONE#') && generations.has(value.split('#')[1] ?? '')
      ? value.replace(/^ZONE#[0-9a-f]+#/, 'ZONE#<generation>#')
      : value;
  return all
    .filter((i) => !notExported.has(String(i.entity)) && !String(i.pk).startsWith('IDEMPOTENCY#'))
    .map((i) => ({
      ...i,
      sk: plain(i.sk),
      // A record's place in its zone's partition by id (gsi2) is its sort key again.
      ...(i.gsi2sk === undefined ? {} : { gsi2sk: plain(i.gsi2sk) }),
      ...(i.entity === 'zone' ? { generation: '<generation>' } : {}),
    }))
    .map((i) => JSON.stringify(Object.fromEntries(Object.entries(i).sort(([a], [b]) => (a < b ? -1 : 1)))))
    .sort();
}

async function freshTable(): Promise<string> {
  const name = `test-${randomUUID()}`;
  await ensureTable(name);
  return name;
}

describe('export and import', () => {
  it('round-trips the demo data plus a transfer and a registration in progress losslessly: export, import into a fresh table, export again', async () => {
    // A transfer in progress: a process, its pending state (the lock), an idempotency record, a moved counter.
    const started = await call('POST', '/v2/domains/transfer-wait.com/transfer', {
      headers: { 'Idempotency-Key': randomUUID() },
      body: { customer: 'demo', registrant: 'demo-registrant', authcode: 'COM-TRANSFER-2026' },
    });
    expect(started.status).toBe(202);
    // A registration the registry keeps pending: its process and the name's pending state (exported).
    const registering = await call('POST', '/v2/domains/register-pending.nl', {
      body: {
        customer: 'demo',
        registrant: 'demo-registrant',
        contacts: [
          { role: 'ADMIN', handle: 'demo-admin' },
          { role: 'TECH', handle: 'demo-tech' },
        ],
      },
    });
    expect(registering.status, JSON.stringify(registering.body)).toBe(202);
    // The count repair stopped part-way: its progress item (not exported).
    const pass = await repairCountsPass({ maxRead: 1, deadline: Date.now() + 60_000 });
    expect(pass.inProgress).toBeDefined();
    expect((await readCountRepairState()).current).toBeDefined();

    const first = await exportDataset();
    const demo = await readDatasetFile(demoDataFile);
    expect(first.customers).toEqual(demo.customers);
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
    expect(first.providers).toEqual([...(demo.providers ?? [])].sort(byName));
    expect(first.apiKeys?.map((k) => k.keyHash).sort()).toEqual(['demo-key', 'demo-limited-key', 'other-key'].map(hashApiKey).sort());
    expect(JSON.stringify(first)).not.toContain('"demo-key"');
    for (const section of [
      'contacts',
      'prices',
      'promos',
      'rates',
      'templates',
      'registryDomains',
      'certificateAuthorities',
      'certificateProducts',
      'certificates',
    ] as const) {
      expect(first[section]?.length, section).toBe(demo[section]?.length);
    }
    expect(first.processes?.map((p) => p.identifier)).toContain('transfer-wait.com');
    expect(first.transferLocks).toEqual([
      expect.objectContaining({ domainName: 'transfer-wait.com', status: 'pending', processId: Number(started.headers['x-process-id']) }),
    ]);
    expect(first.registrationLocks).toEqual([
      expect.objectContaining({
        domainName: 'register-pending.nl',
        customer: 'demo',
        processId: Number(registering.headers['x-process-id']),
      }),
    ]);
    expect(first.processes?.map((p) => p.identifier)).toContain('register-pending.nl');
    expect(first.counters?.process).toBe(Number(registering.headers['x-process-id']));

    const copy = await freshTable();
    await onTable(copy, () => loadDataset(first));
    const second = await onTable(copy, () => exportDataset());
    expect(second).toEqual(first);
    // Item by item, keys and index attributes included: nothing lost, nothing added.
    expect(await items(copy)).toEqual(await items(process.env.TABLE_NAME as string));
    // The loaded pending registration is the poller's (listed by due time) and holds the name.
    expect(await onTable(copy, () => getRegistrationLock('register-pending.nl'))).toEqual(first.registrationLocks?.[0]);
    expect(await onTable(copy, () => listDueRegistrations('9999-12-31T00:00:00Z'))).toEqual(first.registrationLocks);
    // The count repair's progress stays behind: the copy's next pass starts from the first customer.
    expect(await onTable(copy, () => readCountRepairState())).toEqual({});
    // The process counts are not exported: the import keeps them as it writes the processes, exact at once.
    for (const customer of ['demo', 'other']) {
      const imported = (await onTable(copy, () => readProcessCounts(customer, true))).counts;
      expect(Object.fromEntries(imported), customer).toEqual(Object.fromEntries((await readProcessCounts(customer, true)).counts));
    }
    expect((await onTable(copy, () => readProcessCounts('demo', true))).counts.get('all')).toBe(
      first.processes?.filter((p) => p.customer === 'demo').length,
    );
  });

  it('runs export and import as CLI commands, with progress on a long load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    const file = join(dir, 'export.json');
    const exported = await admin(['export', '--out', file]);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/Exported table 'test-[^']+' to .*export\.json \(customers: 2, apiKeys: 3, /);
    const dataset = JSON.parse(readFileSync(file, 'utf8'));
    expect(dataset.customers.map((c: { handle: string }) => c.handle)).toEqual(['demo', 'other']);

    const target = await freshTable();
    const imported = await admin(['import', file], target);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('importing: 1/');
    expect(imported.stderr).toMatch(/importing: (\d+)\/\1 items/);
    expect(imported.stdout).toContain('customers: 2 written, 0 kept');
    const again = await admin(['export'], target);
    expect(JSON.parse(again.stdout)).toEqual(dataset);

    const toStdout = await admin(['export', 'extra']);
    expect(toStdout.code).toBe(2);
    expect(toStdout.stderr).toContain('export takes no arguments');
    const missing = await admin(['import', join(dir, 'missing.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Cannot read dataset');
  });
});

describe('list-keys and revoke-key', () => {
  it("lists a customer's keys by hash prefix, user, permissions and date, never the key itself", async () => {
    const out = await admin(['list-keys', '--customer', 'demo']);
    expect(out.code).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^HASH PREFIX\s+USER\s+PERMISSIONS\s+CREATED$/);
    expect(lines).toHaveLength(3);
    expect(out.stdout).toMatch(new RegExp(`${hashApiKey(demoKey).slice(0, 12)}\\s+alice\\s+DESIGNATED_AGENT,MANAGE_WEBHOOK\\s+\\d{4}-`));
    expect(out.stdout).toMatch(/bob\s+-\s+\d{4}-/);
    expect(out.stdout).not.toContain(demoKey);
    expect(out.stdout).not.toContain(hashApiKey(demoKey));
    const [unknown, noCustomer] = await Promise.all([admin(['list-keys', '--customer', 'nobody']), admin(['list-keys'])]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Customer 'nobody' does not exist");
    expect(noCustomer.code).toBe(2);
    expect(noCustomer.stderr).toContain('list-keys needs --customer');
  });

  it('revokes a key by an unambiguous hash prefix, after which it no longer authenticates', async () => {
    const hash = hashApiKey(otherKey);
    expect((await admin(['revoke-key', hash.slice(0, 4)])).stderr).toContain('PREFIX must be 8 to 64 hex characters');
    const none = await admin(['revoke-key', hash.startsWith('00000000') ? 'ffffffff' : '00000000']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No API key hash starts with');
    const revoked = await admin(['revoke-key', hash.slice(0, 10)]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked API key ${hash.slice(0, 12)} of other/carol.\n`);
    expect((await call('GET', '/v2/providers/REGISTRY/sidn/info', { key: otherKey })).status).toBe(401);
    expect((await admin(['revoke-key', hash.slice(0, 10)])).code).toBe(1);
  });

  it('with the usage plan, also removes the key from it and flushes the stage authorizer cache, so it stops at once', async () => {
    const owner = { keyHash: `feedbeef${'7'.repeat(56)}`, customer: 'demo', user: 'erin' };
    await putApiKey({ ...owner, permissions: [], createdDate: '2026-01-01T00:00:00Z' });
    // API Gateway's REST API, stood in for on this machine: the CLI's own client talks to it over HTTP.
    const requests: string[] = [];
    const gateway = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && url.pathname === '/apikeys') return json(200, { item: [{ id: 'key-erin', name: usageKeyName(owner) }] });
      if (req.method === 'GET' && url.pathname === '/usageplans/plan-1')
        return json(200, { id: 'plan-1', apiStages: [{ apiId: 'api-1', stage: 'sandbox' }] });
      if (req.method === 'DELETE') return res.writeHead(202).end();
      return json(404, { message: 'not found' });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
      const out = await admin(['revoke-key', 'feedbeef77', '--usage-plan', 'plan-1'], process.env.TABLE_NAME as string, {
        AWS_ENDPOINT_URL_API_GATEWAY: endpoint,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      });
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(
        `Revoked API key feedbeef7777 of demo/erin.\nusage plan plan-1: ${usageKeyName(owner)} removed; authorizer cache flushed on api-1/sandbox.\n` +
          'The deployed API refuses it from now on: API Gateway no longer knows its usage-plan key, and its authorizer answers cached for up to 300 s are flushed.\n',
      );
      expect(requests.map((r) => r.replace(/\?.*$/, ''))).toEqual([
        'GET /apikeys',
        'DELETE /usageplans/plan-1/keys/key-erin',
        'DELETE /apikeys/key-erin',
        'GET /usageplans/plan-1',
        'DELETE /restapis/api-1/stages/sandbox/cache/authorizers',
      ]);
    } finally {
      await new Promise((resolve) => gateway.close(resolve));
    }
  });

  it('refuses to revoke a key on AWS without the usage plan, which would leave it working for minutes', async () => {
    const out = await admin(['revoke-key', 'abcdef0199'], process.env.TABLE_NAME as string, { DYNAMODB_ENDPOINT: '' });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('revoke-key against AWS needs --usage-plan (or USAGE_PLAN_ID)');
  });

  it('refuses an ambiguous prefix, naming the keys it matches', async () => {
    const twin = (digit: string) => ({
      keyHash: `abcdef01${digit.repeat(56)}`,
      customer: 'demo',
      user: `twin-${digit}`,
      permissions: [],
      createdDate: '2026-01-01T00:00:00Z',
    });
    await putApiKey(twin('1'));
    await putApiKey(twin('2'));
    const out = await admin(['revoke-key', 'ABCDEF01']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      "'abcdef01' is ambiguous: it matches 2 keys: abcdef011111 (demo/twin-1), abcdef012222 (demo/twin-2). Give more characters.",
    );
    expect((await admin(['revoke-key', 'abcdef012'])).stdout).toBe('Revoked API key abcdef012222 of demo/twin-2.\n');
  });

  it('answers --help for every command', async () => {
    const commands = ['create-key', 'list-keys', 'revoke-key', 'export', 'import', 'load'];
    const outs = await Promise.all(commands.map((command) => admin([command, '--help'])));
    commands.forEach((command, i) => {
      expect(outs[i]?.code, command).toBe(0);
      expect(outs[i]?.stdout, command).toContain(`Usage: npm run admin -- ${command}`);
    });
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../shared/auth/api-keys.ts';
import { getApiKey } from '../shared/db/repositories/api-keys.ts';
import { getContact } from '../shared/db/repositories/contacts.ts';
import { call } from './support/api.ts';

const run = promisify(execFile);

/** Runs the admin CLI as an operator would (a separate process), against this file's table. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'infra/admin.ts', ...args], { env: process.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('admin CLI', () => {
  it('create-key prints a new key once, stores only its hash, and the key works', async () => {
    const out = await admin('create-key', '--customer', 'demo', '--user', 'dave', '--permission', 'DESIGNATED_AGENT');
    expect(out.code).toBe(0);
    const key = out.stdout.trim().split('\n').pop() as string;
    expect(key).toMatch(/^rrk_[A-Za-z0-9_-]{43}$/);
    const stored = await getApiKey(hashApiKey(key));
    expect(stored).toMatchObject({ customer: 'demo', user: 'dave', permissions: ['DESIGNATED_AGENT'] });
    expect(JSON.stringify(stored)).not.toContain(key);
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info', { key });
    expect(res.status).toBe(200);
  });

  it('create-key refuses an unknown customer, a bad permission and missing options', async () => {
    const unknown = await admin('create-key', '--customer', 'nobody', '--user', 'x-user');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Customer 'nobody' does not exist");
    const badPermission = await admin('create-key', '--customer', 'demo', '--user', 'eve', '--permission', 'ROOT');
    expect(badPermission.code).toBe(2);
    expect(badPermission.stderr).toContain("Unknown permission 'ROOT'");
    const missing = await admin('create-key', '--customer', 'demo');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('create-key needs --customer and --user');
  });

  it('load writes a dataset through the repositories and keeps existing items on a reload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataset-'));
    const file = join(dir, 'data.json');
    const contact = {
      customer: 'demo',
      handle: 'demo-extra',
      name: 'Fay Smit',
      addressLine: ['Dam 1'],
      postalCode: '1012 JS',
      city: 'Amsterdam',
      country: 'NL',
      email: 'fay@demo-hosting.example',
      voice: '+31.201234571',
      createdDate: '2025-01-01T00:00:00Z',
    };
    writeFileSync(file, JSON.stringify({ contacts: [contact] }));
    const first = await admin('load', file);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('contacts: 1 written, 0 kept');
    // Stored with the default brand (docs/contacts.md).
    expect(await getContact('demo', 'demo-extra')).toEqual({ ...contact, brand: 'default' });
    const again = await admin('load', file);
    expect(again.stdout).toContain('contacts: 0 written, 1 kept');
  });

  it('load names the problem in an invalid dataset and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dataset-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ contacts: [{ customer: 'demo', handle: 'x' }], surprise: [] }));
    const out = await admin('load', file);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/Invalid dataset: .*contacts\.0/);
    expect(await getContact('demo', 'x')).toBeUndefined();
    const missing = await admin('load', join(dir, 'absent.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ENOENT');
  });
});

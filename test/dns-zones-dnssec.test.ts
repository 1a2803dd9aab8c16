import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DebianRoot, ensureDebianPackages } from '../infra/local/debian-packages.ts';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { tableName } from '../shared/db/table.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// DNSSEC of the zone API (issue 37 item 5) against a real PowerDNS: `dnssec: true` signs the zone,
// `keyData` shows the key the parent needs, and the answers validate with a validating resolver
// (BIND's `delv`, Debian's bind9-dnsutils fetched without root like PowerDNS itself) trusting
// exactly that key, after the zone's creation and after an update.

const execFileAsync = promisify(execFile);
let pdns: LocalPowerDns;
let feeder: StreamFeeder;
let bind: DebianRoot;
let dir: string;

beforeAll(async () => {
  bind = await ensureDebianPackages([
    'bind9-dnsutils',
    'bind9-libs',
    'libmaxminddb0',
    'libfstrm0',
    'libprotobuf-c1',
    'liblmdb0',
    'libjemalloc2',
  ]);
  pdns = await startPowerDns();
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
  feeder = await startStreamFeeder({
    tableName: tableName(),
    consumers: streamConsumers,
    pollIntervalMs: 50,
    retryDelayMs: 100,
    log: () => {},
  });
  await feeder.drain(60_000);
  dir = mkdtempSync(join(tmpdir(), 'delv-'));
}, 180_000);

afterAll(async () => {
  await feeder?.stop();
  await pdns?.stop();
  for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[name];
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface KeyData {
  flags: number;
  protocol: number;
  algorithm: number;
  publicKey: string;
}

/** What `delv` says of `name`'s A records, trusting `keys` as the anchors of `zone`. */
async function delv(zone: string, keys: KeyData[], name: string): Promise<string> {
  const anchors = join(dir, `${zone}.anchors`);
  const lines = keys.map((k) => `  "${zone}." static-key ${k.flags} ${k.protocol} ${k.algorithm} "${k.publicKey}";`);
  writeFileSync(anchors, `trust-anchors {\n${lines.join('\n')}\n};\n`);
  const { stdout, stderr } = await execFileAsync(
    join(bind.root, 'usr/bin/delv'),
    [`@${pdns.dnsAddress}`, '-p', String(pdns.dnsPort), '-a', anchors, `+root=${zone}.`, name, 'A'],
    { env: { ...process.env, LD_LIBRARY_PATH: bind.libraryPath }, timeout: 20_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
  return `${stdout}\n${stderr}`;
}

describe('DNSSEC of a zone made with the zone API', () => {
  it('signs it, shows keyData, and its answers validate with that key, before and after an update', async () => {
    const created = await call('POST', '/v2/dns/zones', {
      body: {
        name: 'api-signed.nl',
        service: 'PREMIUM',
        dnssec: true,
        records: [{ name: 'www.api-signed.nl', type: 'A', content: '192.0.2.61', ttl: 300 }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await feeder.drain();
    const read = await call('GET', `/v2/dns/zones/${created.body.id}`);
    expect(read.body.dns).toMatchObject({
      status: 'served',
      ds: expect.arrayContaining([expect.stringMatching(/^\d+ 13 2 [0-9a-f]{64}$/)]),
    });
    const keyData = read.body.keyData as KeyData[];
    expect(keyData).toEqual([{ flags: 257, protocol: 3, algorithm: 13, publicKey: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) }]);

    const first = await delv('api-signed.nl', keyData, 'www.api-signed.nl');
    expect(first).toContain('; fully validated');
    expect(first).toMatch(/www\.api-signed\.nl\.\s+300\s+IN\s+A\s+192\.0\.2\.61/);

    const updated = await call('POST', `/v2/dns/zones/${created.body.id}/update`, {
      body: { records: [{ name: 'www.api-signed.nl', type: 'A', content: '192.0.2.62', ttl: 300 }] },
      headers: { 'If-Match': read.headers.etag as string },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    await feeder.drain();
    const after = await delv('api-signed.nl', keyData, 'www.api-signed.nl');
    expect(after).toContain('; fully validated');
    expect(after).toMatch(/IN\s+A\s+192\.0\.2\.62/);

    // Trusting another key, the same answers do not validate: the check can fail.
    const other = await call('GET', '/v2/domains/demo-secure.com/zone');
    const wrong = (other.body.keyData as KeyData[] | undefined) ?? [
      { ...keyData[0], publicKey: (keyData[0] as KeyData).publicKey.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) } as KeyData,
    ];
    const refused = await delv('api-signed.nl', wrong, 'www.api-signed.nl');
    expect(refused).not.toContain('; fully validated');
  }, 120_000);
});

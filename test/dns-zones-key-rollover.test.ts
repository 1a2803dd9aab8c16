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
import { call, otherKey } from './support/api.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// A key rollover of a signed zone (issue 37 item 5) against a real PowerDNS: the rollover serves a
// new key beside the old one and waits for the DS (a process, a notification), the acknowledgment
// retires the old key; BIND's `delv` validates the served answers trusting the old key, then both,
// then only the new one (and no longer the old one once it is retired).

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
  dir = mkdtempSync(join(tmpdir(), 'delv-rollover-'));
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
  const anchors = join(dir, `${zone}.${Date.now()}.anchors`);
  const lines = keys.map((k) => `  "${zone}." static-key ${k.flags} ${k.protocol} ${k.algorithm} "${k.publicKey}";`);
  writeFileSync(anchors, `trust-anchors {\n${lines.join('\n')}\n};\n`);
  const { stdout, stderr } = await execFileAsync(
    join(bind.root, 'usr/bin/delv'),
    [`@${pdns.dnsAddress}`, '-p', String(pdns.dnsPort), '-a', anchors, `+root=${zone}.`, name, 'A'],
    { env: { ...process.env, LD_LIBRARY_PATH: bind.libraryPath }, timeout: 20_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
  return `${stdout}\n${stderr}`;
}

async function signedZone(name: string): Promise<{ id: number; keyData: KeyData[]; ds: string[] }> {
  const created = await call('POST', '/v2/dns/zones', {
    body: { name, service: 'BASIC', dnssec: true, records: [{ name: `www.${name}`, type: 'A', content: '192.0.2.81', ttl: 300 }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await feeder.drain();
  const read = await call('GET', `/v2/dns/zones/${created.body.id}`);
  expect(read.body.dns?.status).toBe('served');
  return { id: created.body.id as number, keyData: read.body.keyData as KeyData[], ds: read.body.dns.ds as string[] };
}

describe('a key rollover', () => {
  it('serves a new key beside the old one, waits for the DS, and retires the old key on ack-ds-update; answers validate throughout', async () => {
    const zone = 'rolled.nl';
    const { id, keyData: oldKeys, ds: oldDs } = await signedZone(zone);
    expect(oldKeys).toHaveLength(1);
    expect(await delv(zone, oldKeys, `www.${zone}`)).toContain('; fully validated');

    const started = await call('POST', `/v2/dns/zones/${id}/key-rollover`, { headers: { 'Idempotency-Key': 'rollover-1' } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const processId = Number(started.headers['x-process-id']);
    expect(started.body).toMatchObject({
      id: processId,
      status: 'RUNNING',
      statusDetail: 'WAITING_FOR_DS',
      type: 'dnsZone',
      action: 'keyRollover',
      identifier: zone,
    });
    // The same key replays the answer; it starts nothing more.
    const replayed = await call('POST', `/v2/dns/zones/${id}/key-rollover`, { headers: { 'Idempotency-Key': 'rollover-1' } });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(started.body);
    // A second rollover while the first waits for its DS: refused.
    const again = await call('POST', `/v2/dns/zones/${id}/key-rollover`);
    expect(again.status).toBe(400);
    expect(again.body.type).toBe('ObjectStatusProhibitsOperation');

    await feeder.drain();
    const during = await call('GET', `/v2/dns/zones/${id}`);
    const bothKeys = during.body.keyData as KeyData[];
    expect(bothKeys).toHaveLength(2);
    expect(bothKeys).toContainEqual(oldKeys[0]);
    const newKeys = bothKeys.filter((k) => k.publicKey !== oldKeys[0]?.publicKey);
    expect(newKeys).toHaveLength(1);
    expect(during.body.dns.ds).toEqual(expect.arrayContaining(oldDs));
    expect((during.body.dns.ds as string[]).length).toBeGreaterThan(oldDs.length);
    // Both keys sign: the answers validate trusting the old key (the parent's DS now) and the new one alone.
    expect(await delv(zone, oldKeys, `www.${zone}`)).toContain('; fully validated');
    expect(await delv(zone, newKeys, `www.${zone}`)).toContain('; fully validated');

    // The notification "waiting for DS", once, with the DS records of both keys.
    const told = await call('GET', `/v2/customers/demo/notifications?eventType=DnsZoneKeyRolloverEvent&process=${processId}`);
    expect(told.status, JSON.stringify(told.body)).toBe(200);
    expect(told.body.entities).toHaveLength(1);
    expect(told.body.entities[0]).toMatchObject({
      eventType: 'DnsZoneKeyRolloverEvent',
      notificationType: 'DomainZoneNotification',
      process: processId,
      processType: 'dnsZone',
      processIdentifier: zone,
      subjectStatus: 'PENDING',
      statusDetail: 'WAITING_FOR_DS',
    });
    const process = await call('GET', `/v2/processes/${processId}`);
    expect(process.body).toMatchObject({ status: 'RUNNING', statusDetail: 'WAITING_FOR_DS' });

    // DNSSEC cannot be switched off while the rollover waits for its DS.
    const off = await call('POST', `/v2/dns/zones/${id}/update`, { body: { dnssec: false } });
    expect(off.status).toBe(400);
    expect(off.body.type).toBe('ObjectStatusProhibitsOperation');

    // Another customer acknowledges nothing: the process answers as missing.
    const foreign = await call('POST', `/v2/processes/${processId}/ack-ds-update`, { key: otherKey });
    expect(foreign.status).toBe(404);

    const acked = await call('POST', `/v2/processes/${processId}/ack-ds-update`);
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    expect(acked.body).toMatchObject({ id: processId, status: 'COMPLETED', type: 'dnsZone', action: 'keyRollover' });
    const twice = await call('POST', `/v2/processes/${processId}/ack-ds-update`);
    expect(twice.status).toBe(400);
    expect(twice.body.type).toBe('ObjectStatusProhibitsOperation');

    await feeder.drain();
    const after = await call('GET', `/v2/dns/zones/${id}`);
    expect(after.body.keyData).toEqual(newKeys);
    expect(after.body.dns.ds).not.toEqual(expect.arrayContaining(oldDs));
    expect(await delv(zone, newKeys, `www.${zone}`)).toContain('; fully validated');
    // The old key is gone: trusting it alone, the answers no longer validate.
    expect(await delv(zone, oldKeys, `www.${zone}`)).not.toContain('; fully validated');

    // A second rollover may start now.
    const next = await call('POST', `/v2/dns/zones/${id}/key-rollover`);
    expect(next.status, JSON.stringify(next.body)).toBe(202);
  }, 180_000);

  it("refuses an unsigned zone, another customer's zone like a missing one, and ack-ds-update on another process", async () => {
    const unsigned = await call('POST', '/v2/dns/zones', { body: { name: 'unsigned-roll.nl', service: 'BASIC' } });
    expect(unsigned.status).toBe(201);
    const refused = await call('POST', `/v2/dns/zones/${unsigned.body.id}/key-rollover`);
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ObjectStatusProhibitsOperation');

    const foreign = await call('POST', '/v2/dns/zones/103/key-rollover');
    const missing = await call('POST', '/v2/dns/zones/999999/key-rollover');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);

    // 501 is the demo's transfer process: not a rollover.
    const transfer = await call('POST', '/v2/processes/501/ack-ds-update');
    expect(transfer.status).toBe(400);
    expect(transfer.body.type).toBe('ObjectStatusProhibitsOperation');
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { type DebianRoot, ensureDebianPackages } from '../../infra/local/debian-packages.ts';
import { type LocalPowerDns, startPowerDns } from '../../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../../infra/local/streams.ts';
import { tableName } from '../../shared/db/table.ts';
import { streamConsumers } from '../../shared/routes.ts';

const execFileAsync = promisify(execFile);

/** A DNSKEY as a zone's `keyData` shows it. */
export interface KeyData {
  flags: number;
  protocol: number;
  algorithm: number;
  publicKey: string;
}

/**
 * For the DNSSEC tests of a file whose table streams (`withTableStream()`): a real PowerDNS that
 * serves the file's zones through the stream consumers (DNS_PROVIDER=powerdns), and BIND's `delv`
 * (Debian's bind9-dnsutils, fetched without root like PowerDNS itself) to validate its answers.
 * Started before the file's tests, stopped after them.
 */
export function usePowerDnsWithDelv() {
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

  return {
    /** Waits until the stream consumers (the zone sync among them) have taken every change so far. */
    drain: () => feeder.drain(),
    /** What `delv` says of `name`'s A records, trusting `keys` as the anchors of `zone`. */
    async delv(zone: string, keys: KeyData[], name: string): Promise<string> {
      const anchors = join(dir, `${zone}.${Date.now()}.anchors`);
      const lines = keys.map((k) => `  "${zone}." static-key ${k.flags} ${k.protocol} ${k.algorithm} "${k.publicKey}";`);
      writeFileSync(anchors, `trust-anchors {\n${lines.join('\n')}\n};\n`);
      const { stdout, stderr } = await execFileAsync(
        join(bind.root, 'usr/bin/delv'),
        [`@${pdns.dnsAddress}`, '-p', String(pdns.dnsPort), '-a', anchors, `+root=${zone}.`, name, 'A'],
        { env: { ...process.env, LD_LIBRARY_PATH: bind.libraryPath }, timeout: 20_000 },
      ).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
      return `${stdout}\n${stderr}`;
    },
  };
}

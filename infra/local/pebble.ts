import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { diesWithParent, freePort, stopChild } from './child-process.ts';
import { ensureDebianPackages } from './debian-packages.ts';

/**
 * Pebble, Let's Encrypt's ACME test CA, for the tests, the benchmark and `npm start` against a
 * real ACME server: Debian's `pebble` (fetched without root by debian-packages.ts), on free ports
 * of 127.0.0.1, with External Account Binding required, its default nonce rejection kept (so
 * clients prove their `badNonce` retry), `PEBBLE_VA_NOSLEEP=1`, and its DNS lookups sent to the
 * DNS server given (the test's PowerDNS).
 */

/** A running Pebble and how to reach and stop it. */
export interface LocalPebble {
  /** The ACME directory: `https://127.0.0.1:<port>/dir`. */
  directoryUrl: string;
  /** The management interface (`/roots/0`, `/intermediates/0`). */
  managementUrl: string;
  /** Pebble's TLS certificate (PEM): trust it with NODE_EXTRA_CA_CERTS=<tlsCertificateFile>. */
  tlsCertificate: string;
  tlsCertificateFile: string;
  /** The External Account Binding Pebble requires. */
  eab: { kid: string; hmacKey: string };
  pid: number;
  /** Stops Pebble (its orders and its CA are gone; a new start makes a new root). */
  stop(): Promise<void>;
  /** Stops Pebble answering, keeping its state (SIGSTOP: an outage), and lets it go on (SIGCONT). */
  pause(): void;
  resume(): void;
  /** The root that signs Pebble's chain now (PEM), from the management interface. */
  root(): Promise<string>;
}

export interface PebbleOptions {
  /** Where Pebble sends its DNS lookups (`127.0.0.1:<port>`): the validation authority resolves the dns-01 records there. */
  dnsServer: string;
  /** The percentage of good nonces Pebble rejects as bad (Pebble's default, 5, when omitted). */
  nonceReject?: number;
  cacheDir?: string;
}

/** Pebble cannot be had or did not start: the one-line reason. */
export class PebbleFailed extends Error {}

/** A P-256 TLS certificate for 127.0.0.1 and localhost, self-signed (what NODE_EXTRA_CA_CERTS trusts). */
export async function tlsPair(): Promise<{ certificate: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const serialNumber = randomBytes(8).toString('hex');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber,
    // A name of its own: two trusted self-signed certificates with one name (two Pebbles in one
    // process) make OpenSSL pick either as the issuer, and the other's handshake fails
    // (DEPTH_ZERO_SELF_SIGNED_CERT).
    name: `CN=localhost, O=Local Pebble ${serialNumber}`,
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 30 * 86_400_000),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const b64 = Buffer.from(pkcs8)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return { certificate: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${b64}-----END PRIVATE KEY-----\n` };
}

/** GET over TLS trusting only `ca`; the status and body. */
function getTrusting(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** Starts Pebble and waits until its directory answers. It dies with this process (setpriv --pdeathsig). */
export async function startPebble(options: PebbleOptions): Promise<LocalPebble> {
  const { root } = await ensureDebianPackages(['pebble'], options.cacheDir ? { cacheDir: options.cacheDir } : {});
  const binary = join(root, 'usr/bin/pebble');
  if (!existsSync(binary)) throw new PebbleFailed(`pebble is missing from the extracted package (${binary}).`);
  const home = mkdtempSync(join(tmpdir(), 'pebble-'));
  const tls = await tlsPair();
  const certificateFile = join(home, 'cert.pem');
  writeFileSync(certificateFile, tls.certificate);
  writeFileSync(join(home, 'key.pem'), tls.key, { mode: 0o600 });
  const ports = { acme: await freePort(), management: await freePort() };
  const eab = { kid: 'registrar-test', hmacKey: randomBytes(32).toString('base64url') };
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${ports.acme}`,
      managementListenAddress: `127.0.0.1:${ports.management}`,
      certificate: certificateFile,
      privateKey: join(home, 'key.pem'),
      // Ports of the http-01 and tls-alpn-01 validations, unused here (dns-01 only): free ones all the same.
      httpPort: await freePort(),
      tlsPort: await freePort(),
      ocspResponderURL: '',
      externalAccountBindingRequired: true,
      externalAccountMACKeys: { [eab.kid]: eab.hmacKey },
    },
  };
  writeFileSync(join(home, 'pebble-config.json'), JSON.stringify(config), { mode: 0o600 });
  const args = ['-config', join(home, 'pebble-config.json'), '-dnsserver', options.dnsServer];
  const [command, commandArgs] = diesWithParent(binary, args, 'Pebble');
  const env: NodeJS.ProcessEnv = { ...process.env, PEBBLE_VA_NOSLEEP: '1' };
  if (options.nonceReject !== undefined) env.PEBBLE_WFE_NONCEREJECT = String(options.nonceReject);
  else delete env.PEBBLE_WFE_NONCEREJECT;
  const child = spawn(command, commandArgs, { cwd: home, stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const directoryUrl = `https://127.0.0.1:${ports.acme}/dir`;
  const managementUrl = `https://127.0.0.1:${ports.management}`;
  try {
    await waitUntilReady(directoryUrl, tls.certificate, child, () => output);
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  return {
    directoryUrl,
    managementUrl,
    tlsCertificate: tls.certificate,
    tlsCertificateFile: certificateFile,
    eab,
    pid: child.pid ?? -1,
    stop: async () => {
      await stopChild(child);
      rmSync(home, { recursive: true, force: true });
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    root: async () => (await getTrusting(`${managementUrl}/roots/0`, tls.certificate)).body,
  };
}

async function waitUntilReady(directoryUrl: string, ca: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new PebbleFailed(
        `Pebble exited during start-up (${child.exitCode ?? child.signalCode}): ${output().trim().split('\n').slice(-2).join(' / ').slice(0, 400)}`,
      );
    }
    try {
      if ((await getTrusting(directoryUrl, ca)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new PebbleFailed(`Pebble did not answer within 30 s: ${output().slice(-400)}`);
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPebble } from './pebble.ts';
import { startPowerDns } from './powerdns.ts';

/**
 * `npx tsx infra/local/pebble-cli.ts`: a PowerDNS and a Pebble that validates against it, for
 * running `npm start` against a real ACME CA (README, "Certificates from a real ACME CA"). It
 * writes the settings `npm start` needs into an env file beside Pebble's TLS certificate (mode
 * 0600: it holds the EAB HMAC key and the PowerDNS API key), prints the file's path, and stops
 * both servers on Ctrl-C.
 */
async function main(): Promise<void> {
  const pdns = await startPowerDns();
  const pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
  const envFile = join(pebble.tlsCertificateFile, '..', 'sandbox.env');
  const settings = {
    NODE_EXTRA_CA_CERTS: pebble.tlsCertificateFile,
    DNS_PROVIDER: 'powerdns',
    POWERDNS_API_URL: pdns.apiUrl,
    POWERDNS_API_KEY: pdns.apiKey,
    CERTIFICATE_AUTHORITY: 'acme',
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_EAB_KID: pebble.eab.kid,
    ACME_EAB_HMAC_KEY: pebble.eab.hmacKey,
  };
  writeFileSync(
    envFile,
    `${Object.entries(settings)
      .map(([k, val]) => `${k}=${val}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  console.log(
    [
      `Pebble ACME directory ${pebble.directoryUrl} (EAB required), validating against PowerDNS on 127.0.0.1:${pdns.dnsPort}.`,
      `Its root: ${pebble.managementUrl}/roots/0 (curl --cacert ${pebble.tlsCertificateFile}).`,
      'Start the sandbox against them in another shell:',
      `  set -a; . ${envFile}; set +a; npm start`,
      'Ctrl-C stops Pebble and PowerDNS.',
    ].join('\n'),
  );
  const stop = async () => {
    await pebble.stop();
    await pdns.stop();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

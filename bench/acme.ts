/**
 * `npx tsx bench/acme.ts` (and the last part of `npm run bench`): the time from the renew request
 * to a downloadable certificate against a real ACME CA (Debian's Pebble, EAB required, its default
 * nonce rejection, `PEBBLE_VA_NOSLEEP=1`, validating against a real PowerDNS), p50 over a few runs,
 * and the calls to the CA per issuance. The DCV job is run back to back (as soon as a pass ends),
 * so the figure is the service's own time: deployed, the job's schedule (5 minutes) comes on top.
 * Prints figures; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

const runs = Number(process.env.ACME_BENCH_RUNS) || 5;

process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-acme-${randomUUID()}`;
process.env.ONE_TIME_LINK_SECRET = randomUUID() + randomUUID();

const { localSandboxEnvironment } = await import('../infra/stages.ts');
const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { startPowerDns } = await import('../infra/local/powerdns.ts');
const { startPebble } = await import('../infra/local/pebble.ts');

const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
if (dynamo) process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
const pdns = await startPowerDns();
const pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}` });
setDefaultCACertificates([...getCACertificates('default'), pebble.tlsCertificate]);
Object.assign(process.env, localSandboxEnvironment, {
  CERTIFICATE_AUTHORITY: 'acme',
  DNS_PROVIDER: 'powerdns',
  POWERDNS_API_URL: pdns.apiUrl,
  POWERDNS_API_KEY: pdns.apiKey,
  ACME_DIRECTORY_URL: pebble.directoryUrl,
  ACME_EAB_KID: pebble.eab.kid,
  ACME_EAB_HMAC_KEY: pebble.eab.hmacKey,
});

try {
  const { ensureTable } = await import('../infra/local/ensure-table.ts');
  const { demoDataFile, loadDataset, readDatasetFile } = await import('../infra/dataset.ts');
  await ensureTable(process.env.TABLE_NAME);
  await loadDataset(await readDatasetFile(demoDataFile));
  const { dnsProvider } = await import('../shared/dns/select.ts');
  const { syncZone } = await import('../shared/dns/sync.ts');
  await syncZone(dnsProvider(), 'demo-shop.nl');

  const acme = await import('acme-client');
  let calls = 0;
  let firstCall = 0;
  let lastCall = 0;
  acme.axios.interceptors.request.use((config) => {
    calls++;
    lastCall = performance.now();
    firstCall ||= lastCall;
    return config;
  });
  const { call } = await import('../test/support/api.ts');
  const { testCertificate } = await import('../test/support/certificates.ts');
  const { makeCsr } = await import('../test/support/csr.ts');
  const { handler: dcvCheck } = await import('../functions/dcv-check/handler.ts');
  const job = () => dcvCheck({} as never, { awsRequestId: 'bench', functionName: 'dcv-check' } as never);

  const times: number[] = [];
  const perIssuance: number[] = [];
  /** From the first call to the CA to the last, per issuance (the rest is the service: the renew request, the table, the job). */
  const withCa: number[] = [];
  const passes: number[] = [];
  // The first issuance registers the account (one EAB registration): reported apart.
  for (let i = 0; i <= runs; i++) {
    // A name of its own each time: Pebble would otherwise reuse the authorizations of the last one.
    const name = `bench-${i}-${randomUUID().slice(0, 6)}.demo-shop.nl`;
    const certificate = await testCertificate({ commonName: name, san: [name] });
    const csr = makeCsr({ cn: name, san: [name], key: 'p256' });
    const before = calls;
    firstCall = 0;
    const started = performance.now();
    const renewed = await call('POST', `/v2/ssl/certificates/${certificate.id}/renew`, { body: { period: 12, csr, san: [] } });
    if (renewed.status !== 202) throw new Error(`renew answered ${renewed.status}: ${renewed.raw}`);
    const processId = renewed.headers['x-process-id'];
    let issued: number | undefined;
    let pass = 0;
    while (issued === undefined) {
      await job();
      pass++;
      const info = await call('GET', `/v2/processes/${processId}/info`);
      issued = info.body.issuedCertificateId as number | undefined;
      if (pass > 200) throw new Error(`process ${processId} not issued: ${info.raw}`);
    }
    const download = await call('GET', `/v2/ssl/certificates/${issued}/download?format=CRT`);
    if (download.status !== 200) throw new Error(`download answered ${download.status}`);
    const elapsed = performance.now() - started;
    if (i === 0) {
      console.log(`First issuance (registers the ACME account): ${elapsed.toFixed(0)} ms, ${calls - before} calls to the CA`);
      continue;
    }
    times.push(elapsed);
    withCa.push(lastCall - firstCall);
    perIssuance.push(calls - before);
    passes.push(pass);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;
  console.log(
    `\n### ACME: renew request to downloadable certificate against Pebble (${runs} runs, DCV job back to back)\n\n` +
      '| p50 ms | min ms | max ms | first to last CA call, p50 ms | calls to the CA per issuance (median) | DCV passes (median) |\n|---:|---:|---:|---:|---:|---:|\n' +
      `| ${median(times).toFixed(0)} | ${(sorted[0] as number).toFixed(0)} | ${(sorted.at(-1) as number).toFixed(0)} | ${median(withCa).toFixed(0)} | ${median(perIssuance)} | ${median(passes)} |`,
  );
} finally {
  if (!dynamo) {
    // An endpoint of its own (DYNAMODB_ENDPOINT) keeps running: the bench's table goes.
    const { DeleteTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const client = new DynamoDBClient({
      endpoint: process.env.DYNAMODB_ENDPOINT,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME })).catch(() => undefined);
  }
  await pebble.stop();
  await pdns.stop();
  await dynamo?.stop();
}

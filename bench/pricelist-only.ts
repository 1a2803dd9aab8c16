/**
 * Only the price list's first request of the benchmark (bench/pricelist.ts), without the rest of
 * `npm run bench`: `npx tsx bench/pricelist-only.ts [entries] [runs]` (default 60000 and 5). It
 * starts its own DynamoDB Local, or with `BENCH_DYNAMODB_ENDPOINT=http://...` uses one already
 * running (in a table of its own, deleted at the end).
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { arch } from 'node:process';

process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-${randomUUID()}`;
const { localSandboxEnvironment } = await import('../infra/stages.ts');
Object.assign(process.env, localSandboxEnvironment, { ONE_TIME_LINK_SECRET: randomUUID() + randomUUID() });

const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
const { ensureTable } = await import('../infra/local/ensure-table.ts');
const { demoDataFile, loadDataset, readDatasetFile } = await import('../infra/dataset.ts');

const running = process.env.BENCH_DYNAMODB_ENDPOINT;
const dynamo = running ? undefined : await startDynamoDbLocal();
process.env.DYNAMODB_ENDPOINT = running ?? dynamo?.endpoint;
try {
  await ensureTable(process.env.TABLE_NAME);
  await loadDataset(await readDatasetFile(demoDataFile));
  console.log(`# the price list's first request: ${new Date().toISOString().slice(0, 19)}Z`);
  console.log(
    `machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}; load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}; DynamoDB Local at ${process.env.DYNAMODB_ENDPOINT}`,
  );
  await (await import('./pricelist.ts')).benchPriceListFirst(Number(process.argv[2] ?? 60_000), Number(process.argv[3] ?? 5));
  console.log(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}`,
  );
} finally {
  if (dynamo) await dynamo.stop();
  else {
    const { DeleteTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { clientConfig } = await import('../shared/db/client.ts');
    const client = new DynamoDBClient(clientConfig());
    await client.send(new DeleteTableCommand({ TableName: process.env.TABLE_NAME })).finally(() => client.destroy());
  }
}

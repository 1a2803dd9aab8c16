/**
 * What every `bench/*-only.ts` launcher shares: one section of the benchmark run on its own, against
 * a DynamoDB Local this starts, or with `BENCH_DYNAMODB_ENDPOINT=http://...` one already running (in
 * a table of its own, deleted at the end). The functions' environment is set when this module is
 * evaluated, before any of theirs load: a launcher imports it first and its section dynamically.
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { arch } from 'node:process';

process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
process.env.AWS_REGION ??= 'eu-west-1';
process.env.TABLE_NAME = `bench-${randomUUID()}`;
const { localSandboxEnvironment } = await import('../infra/stages.ts');
Object.assign(process.env, localSandboxEnvironment, { ONE_TIME_LINK_SECRET: randomUUID() + randomUUID() });

const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

/**
 * Creates the table, loads the demo data, prints the section's title, the machine and its load
 * average, runs `section`, prints the load average again, and stops DynamoDB Local (or deletes the
 * table) whatever happened.
 */
export async function runStandalone(title: string, section: () => Promise<unknown>): Promise<void> {
  const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
  const { ensureTable } = await import('../infra/local/ensure-table.ts');
  const { demoDataFile, loadDataset, readDatasetFile } = await import('../infra/dataset.ts');
  const table = process.env.TABLE_NAME as string;
  const running = process.env.BENCH_DYNAMODB_ENDPOINT;
  const dynamo = running ? undefined : await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT = running ?? dynamo?.endpoint;
  try {
    await ensureTable(table);
    await loadDataset(await readDatasetFile(demoDataFile));
    console.log(`# ${title}: ${new Date().toISOString().slice(0, 19)}Z`);
    console.log(
      `machine: ${arch}, ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; Node ${process.version}; load average ${loadAverage()}; DynamoDB Local at ${process.env.DYNAMODB_ENDPOINT}`,
    );
    await section();
    console.log(`load average at the end: ${loadAverage()}`);
  } finally {
    if (dynamo) await dynamo.stop();
    else {
      const { DeleteTableCommand, DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
      const { clientConfig } = await import('../shared/db/client.ts');
      const client = new DynamoDBClient(clientConfig());
      await client.send(new DeleteTableCommand({ TableName: table })).finally(() => client.destroy());
    }
  }
}

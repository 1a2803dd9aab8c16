import { parseArgs } from 'node:util';
import { tableName } from '../../shared/db/table.ts';
import { demoDataFile, loadDataset, readDatasetFile } from '../dataset.ts';
import { JavaMissing, type LocalDynamo, startDynamoDbLocal } from './dynamodb-local.ts';
import { ensureTable } from './ensure-table.ts';
import { startJobs } from './jobs.ts';
import { startServer } from './server.ts';

const usage = `Usage: npm start -- [--data-dir DIR] [--no-seed] [--port N] [--host H]

  --data-dir DIR  keep DynamoDB Local's data in DIR across restarts (env DATA_DIR); default: in memory
  --no-seed       do not load the demo dataset (env SEED=false)
  --port N        HTTP port (env PORT, default 3000)
  --host H        HTTP address (env HOST, default 127.0.0.1)

With DYNAMODB_ENDPOINT set, no DynamoDB Local is started and that endpoint is used instead.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      'no-seed': { type: 'boolean', default: false },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const dataDir = values['data-dir'] ?? process.env.DATA_DIR;
  const seed = !values['no-seed'] && !/^(0|false|no)$/i.test(process.env.SEED ?? '');
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  const host = values.host ?? process.env.HOST ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port: ${values.port ?? process.env.PORT}`);

  let dynamo: LocalDynamo | undefined;
  let storage: string;
  if (process.env.DYNAMODB_ENDPOINT) {
    storage = `DynamoDB at ${process.env.DYNAMODB_ENDPOINT}`;
  } else {
    dynamo = await startDynamoDbLocal({ dataDir });
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    storage = `DynamoDB Local on ${dynamo.endpoint}, ${dataDir ? `data in ${dataDir}` : 'in memory'}`;
  }

  let stopJobs = () => {};
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    const force = setTimeout(() => process.exit(1), 8000);
    force.unref();
    stopJobs();
    await server?.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const table = tableName();
  const created = await ensureTable(table);
  let seeded = 'demo data not loaded';
  if (seed) {
    const report = await loadDataset(await readDatasetFile(demoDataFile));
    const written = Object.values(report).reduce((n, r) => n + r.written, 0);
    const kept = Object.values(report).reduce((n, r) => n + r.kept, 0);
    seeded = `demo data: ${written} items written, ${kept} already present`;
  }
  server = await startServer({ host, port });
  stopJobs = startJobs();
  console.log(
    `Registrar API sandbox ready on ${server.url}/v2 (table '${table}'${created ? ' created' : ''}; ${storage}; ${seeded}). ` +
      `Try: curl -H 'Authorization: ApiKey demo-key' ${server.url}/v2/providers/REGISTRY/sidn/info  (API docs: ${server.url}/docs)`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof JavaMissing) console.error(error.message);
  else console.error(`npm start failed: ${(error as Error).message}`);
  process.exit(1);
});

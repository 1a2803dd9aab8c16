import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashApiKey } from '../../shared/auth/api-keys.ts';
import { db } from '../../shared/db/client.ts';
import { getApiKey } from '../../shared/db/repositories/api-keys.ts';
import { tableName } from '../../shared/db/table.ts';
import { streamConsumers } from '../../shared/routes.ts';
import { demoDataFile, loadDataset, readDatasetFile } from '../dataset.ts';
import { localSandboxEnvironment } from '../stages.ts';
import { checkDataDir, checkPortFree, StartupFailure } from './data-dir.ts';
import { type LocalDns, openDns } from './dns.ts';
import { awaitDurableTransactions, DynamoDbLocalFailed, JavaMissing, type LocalDynamo, startDynamoDbLocal } from './dynamodb-local.ts';
import { ensureTable } from './ensure-table.ts';
import { startJobs } from './jobs.ts';
import { localServerFile, newControlToken, writeLocalServerFile } from './local-server-file.ts';
import { startServer } from './server.ts';
import { type StreamFeeder, startStreamFeeder } from './streams.ts';

const usage = `Usage: npm start -- [--data-dir DIR] [--no-seed] [--port N] [--host H]

  --data-dir DIR  keep DynamoDB Local's data in DIR across restarts (env DATA_DIR); default: in memory
  --no-seed       do not load the demo dataset (env SEED=false)
  --port N        HTTP port (env PORT, default 3000)
  --host H        HTTP address (env HOST, default 127.0.0.1)

Log lines are for a person on a terminal (LOG_FORMAT=pretty) and JSON otherwise (LOG_FORMAT=json);
set LOG_FORMAT to choose.

With DYNAMODB_ENDPOINT set, no DynamoDB Local is started and that endpoint is used instead.
With REGISTRY_GATEWAY=rtr (and RTR_API_URL, RTR_API_KEY, RTR_CUSTOMER, RTR_REGISTRIES), transfers go
to that upstream Realtime Register account (another sandbox, say) and the registries' metadata is
copied from it at start.`;

interface StartOptions {
  dataDir: string | undefined;
  seed: boolean;
  port: number;
  host: string;
}

/** The options from the command line, then the environment; undefined once --help printed the usage. */
function readOptions(): StartOptions | undefined {
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
    return undefined;
  }
  const dataDir = values['data-dir'] ?? process.env.DATA_DIR;
  const seed = !values['no-seed'] && !/^(0|false|no)$/i.test(process.env.SEED ?? '');
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  const host = values.host ?? process.env.HOST ?? '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port: ${values.port ?? process.env.PORT}`);
  return { dataDir, seed, port, host };
}

/**
 * The DynamoDB the sandbox uses: DYNAMODB_ENDPOINT if set, else a DynamoDB Local started here (and
 * stopped on exit), on a data dir checked first.
 */
async function openStorage(dataDir: string | undefined, running: Running): Promise<string> {
  if (process.env.DYNAMODB_ENDPOINT) return `DynamoDB at ${process.env.DYNAMODB_ENDPOINT}`;
  if (dataDir !== undefined) checkDataDir(dataDir);
  const dynamo = await startDynamoDbLocal(dataDir !== undefined ? { dataDir } : {});
  running.dynamo = dynamo;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  if (dataDir !== undefined) awaitDurableTransactions(db());
  return `DynamoDB Local on ${dynamo.endpoint}, ${dataDir ? `data in ${dataDir}` : 'in memory'}`;
}

/** What the sandbox has started so far, all of which a signal stops. */
interface Running {
  dynamo?: LocalDynamo;
  server?: Awaited<ReturnType<typeof startServer>>;
  streams?: StreamFeeder;
  dns?: LocalDns;
  stopJobs: () => Promise<void>;
  /** Removes the file that tells the admin CLI where this server listens. */
  forgetFile?: () => void;
}

/** Ctrl-C or SIGTERM stops the jobs, the server and DynamoDB Local, or exits anyway after 8 s. */
function stopOnSignals(running: Running): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    const force = setTimeout(() => process.exit(1), 8000);
    force.unref();
    running.forgetFile?.();
    await running.stopJobs();
    await running.streams?.stop();
    await running.server?.close();
    await running.dynamo?.stop();
    await running.dns?.powerDns?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** Loads the demo dataset unless told not to; says what it did, for the ready line. */
async function seedDemoData(seed: boolean): Promise<string> {
  if (!seed) return 'demo data not loaded';
  const report = await loadDataset(await readDatasetFile(demoDataFile));
  const written = Object.values(report).reduce((n, r) => n + r.written, 0);
  const kept = Object.values(report).reduce((n, r) => n + r.kept, 0);
  return `demo data: ${written} items written, ${kept} already present`;
}

/**
 * The local sandbox chooses its integrations explicitly, as a deployed stage does: every one the
 * sandbox implementation, and a one-time-link secret of its own, fresh each start (links from an
 * earlier run stop working). Values already in the environment are kept.
 */
function chooseSandbox(dataDir: string | undefined): void {
  for (const [name, value] of Object.entries(localSandboxEnvironment)) process.env[name] ??= value;
  process.env.ONE_TIME_LINK_SECRET ??= randomBytes(32).toString('base64url');
  process.env.WEBHOOK_SECRETS_LOCAL_KEY ??= localWebhookSecretsKey(dataDir);
}

/**
 * The local key that seals webhook secrets (as the stack's KMS key does deployed): kept in the data
 * dir (`webhook-secrets.key`, 32 random bytes, readable by its owner only) so the secrets stored
 * there open after a restart; without a data dir the table is in memory, and so is a fresh key.
 */
function localWebhookSecretsKey(dataDir: string | undefined): string {
  if (dataDir === undefined) return randomBytes(32).toString('base64');
  const file = join(dataDir, 'webhook-secrets.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} must hold 32 bytes (the key that seals the webhook secrets stored in this data dir)`);
  return key.toString('base64');
}

/**
 * A front of an upstream account (`REGISTRY_GATEWAY=rtr`): its settings are checked before anything
 * starts (a missing one stops the start, named), as a deployed function refuses to start.
 */
async function checkIntegrationSettings(): Promise<void> {
  if (process.env.REGISTRY_GATEWAY?.trim() !== 'rtr') return;
  const { rtrSettingsFromEnvironment } = await import('../../shared/registry/rtr-settings.ts');
  rtrSettingsFromEnvironment();
}

/** With an upstream account, its registries' metadata copied into the table before the server opens; what was done, for the ready line. */
async function copyUpstreamMetadata(): Promise<string | undefined> {
  if (process.env.REGISTRY_GATEWAY?.trim() !== 'rtr') return undefined;
  const { refreshRegistryMetadata } = await import('../../shared/registry/refresh-metadata.ts');
  const refresh = await refreshRegistryMetadata();
  if (!refresh) return undefined;
  if (refresh.failed.length === refresh.registries) {
    throw new StartupFailure(
      `The upstream registry account told no registry's metadata (${refresh.failed.join(', ')}): is RTR_API_URL right and the upstream up?`,
    );
  }
  const failed = refresh.failed.length > 0 ? `, not told: ${refresh.failed.join(', ')}` : '';
  return `registry: upstream account '${process.env.RTR_CUSTOMER}', metadata of ${refresh.registries - refresh.failed.length} registries copied${failed}`;
}

/**
 * A line per stage of the start on a terminal (the first start fetches PowerDNS and takes its time),
 * with the time since the start; nothing when the output is not a terminal, where the ready line
 * (or the failure line) is the one line.
 */
function progressLines(stream: NodeJS.WriteStream = process.stdout): (stage: string) => void {
  if (!stream.isTTY) return () => {};
  const t0 = Date.now();
  return (stage) => stream.write(`  ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s  ${stage}\n`);
}

/** Starts the storage, the table and its data, the server and the jobs, in that order; the ready line once all run. */
async function start(options: StartOptions, running: Running): Promise<void> {
  const progress = progressLines();
  progress(`starting DynamoDB Local and DNS (PowerDNS; fetched once, then cached)`);
  // DNS starts beside the storage (both take a second or more); the zones reach it by the stream.
  const dnsStarting = openDns(options.dataDir).then((dns) => {
    running.dns = dns;
    progress(`DNS: ${dns.line}`);
    return dns;
  });
  const storageStarting = openStorage(options.dataDir, running).then((storage) => {
    progress(`storage: ${storage}`);
    return storage;
  });
  const [storage, dns] = await Promise.all([storageStarting, dnsStarting]);
  const table = tableName();
  progress(`table '${table}'`);
  const created = await ensureTable(table);
  if (options.seed) progress('loading the demo data');
  const seeded = await seedDemoData(options.seed);
  if (process.env.REGISTRY_GATEWAY?.trim() === 'rtr') progress("copying the registries' metadata from the upstream account");
  const upstream = await copyUpstreamMetadata();
  progress('starting the HTTP server, the jobs and the stream consumers');
  const controlToken = newControlToken();
  const server = await startServer({ host: options.host, port: options.port, controlToken });
  running.server = server;
  // Where it listens, for the admin CLI (npm run admin finds the table without DYNAMODB_ENDPOINT).
  running.forgetFile = writeLocalServerFile(localServerFile(options.dataDir), {
    url: server.url,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT as string,
    tableName: table,
    pid: process.pid,
    controlToken,
  });
  running.stopJobs = startJobs();
  // The stream consumers, fed from DynamoDB Local's stream as Lambda feeds them; with a data dir
  // their positions are kept beside the data, so a restart goes on where it stopped.
  if (streamConsumers.length > 0) {
    running.streams = await startStreamFeeder({
      tableName: table,
      consumers: streamConsumers,
      ...(options.dataDir !== undefined ? { checkpointFile: join(options.dataDir, 'stream-checkpoints.json') } : {}),
    });
  }
  console.log(
    `Registrar API sandbox ready on ${server.url}/v2 (table '${table}'${created ? ' created' : ''}; ${storage}; ${dns.line}; ${seeded}${upstream ? `; ${upstream}` : ''}). ` +
      `${await firstCall(server.url)}  (API docs: ${server.url}/docs)`,
  );
}

/** The demo dataset's key (infra/demo-data.json), which the ready line suggests only while the table holds it. */
const demoKey = 'demo-key';

/** What to try first: a call with the demo key when the table has it, else how to load a dataset (no key exists yet). */
async function firstCall(url: string): Promise<string> {
  if (await getApiKey(hashApiKey(demoKey))) {
    return `Try: curl -H 'Authorization: ApiKey ${demoKey}' ${url}/v2/providers/REGISTRY/sidn/info`;
  }
  return 'No API key is loaded yet: load a dataset first (npm run admin -- load FILE; docs/api.md, "Datasets").';
}

/** The one line a failed start prints: the known failures as they are, DynamoDB Local's storage by its cause. */
function failureLine(error: unknown, dynamo: LocalDynamo | undefined): string {
  if (error instanceof StartupFailure || error instanceof JavaMissing || error instanceof DynamoDbLocalFailed) return error.message;
  const storage = dynamo?.storageFailure();
  if (storage) return storage;
  return `npm start failed: ${String((error as Error)?.message ?? error).split('\n')[0]}`;
}

async function main(): Promise<void> {
  const options = readOptions();
  if (!options) return;
  // Before anything starts: a port in use is refused without touching the data dir or starting java.
  await checkPortFree(options.host, options.port);
  await checkIntegrationSettings();
  // The data dir checked (and made) first: the key that seals webhook secrets is kept in it.
  if (options.dataDir !== undefined) checkDataDir(options.dataDir);
  chooseSandbox(options.dataDir);
  // Log lines for a person on a terminal, JSON lines otherwise (shared/logger.ts); LOG_FORMAT=json|pretty chooses.
  process.env.LOG_FORMAT ??= process.stdout.isTTY ? 'pretty' : 'json';
  const running: Running = { stopJobs: async () => {} };
  stopOnSignals(running);
  try {
    await start(options, running);
  } catch (error) {
    console.error(failureLine(error, running.dynamo));
    running.forgetFile?.();
    await running.stopJobs();
    await running.streams?.stop();
    await running.server?.close();
    await running.dynamo?.stop();
    await running.dns?.powerDns?.stop();
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(failureLine(error, undefined));
  process.exit(1);
});

import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import * as v from 'valibot';
import { generateApiKey, hashApiKey } from '../shared/auth/api-keys.ts';
import { deleteApiKey, listApiKeys, putApiKey } from '../shared/db/repositories/api-keys.ts';
import { getCustomer } from '../shared/db/repositories/customers.ts';
import { repairExpiryDayCounts } from '../shared/db/repositories/domains.ts';
import { tableName } from '../shared/db/table.ts';
import { repairNotificationCounts } from '../shared/notifications/repair-counts.ts';
import { repairProcessCounts } from '../shared/processes/repair-counts.ts';
import { authorizerCacheSeconds } from '../shared/routes.ts';
import { Handle, Permission } from '../shared/schemas/primitives.ts';
import { toWireTime } from '../shared/time.ts';
import { datasetProblems, loadDataset, parseDataset, readDatasetFile, referenceProblems } from './dataset.ts';
import { exportDataset, scanTable } from './export.ts';
import { flushLocalAuthorizerCache, type LocalServerInfo, localServerFile, readLocalServerFile } from './local/local-server-file.ts';
import { migrateTable } from './migrate.ts';
import { type KeyOwner, registerUsageKey, retireUsageKey } from './usage-plan-keys.ts';

/**
 * Operator commands against the table named by TABLE_NAME (default 'registrar'), on DynamoDB Local
 * (DYNAMODB_ENDPOINT) or AWS (the standard AWS environment: AWS_PROFILE / AWS_REGION / keys).
 */
const usage = `Usage: npm run admin -- <command> [options]

Commands:
  create-key --customer C --user U [--permission P]... [--usage-plan ID]
      Creates an API key for user U of customer C and prints it once; only its hash is stored.
      Permissions: DESIGNATED_AGENT, MANAGE_WEBHOOK. With --usage-plan (or USAGE_PLAN_ID), against a deployed
      stack, also registers the key in the stack's usage plan (the UsagePlanId output), which
      gives it its per-key throttle and quota; without that API Gateway refuses the key (403).
  register-keys --customer C [--usage-plan ID]
      Registers every existing key of customer C in the usage plan (idempotent), e.g. after load.
  list-keys --customer C
      Lists the API keys of customer C: hash prefix, user, permissions, created. Never a key.
  revoke-key PREFIX [--usage-plan ID]
      Deletes the API key whose hash starts with PREFIX (at least 8 hex characters, as list-keys
      shows it); refuses a prefix that matches no key or several. With --usage-plan (or
      USAGE_PLAN_ID; required against AWS) also removes its key from the usage plan and flushes
      the authorizer cache of the plan's stages, so it stops working at once.
  export [--out FILE]
      Writes the whole table as a dataset (the format of infra/demo-data.json; API keys as keyHash)
      to FILE, or to standard output.
  import FILE [--overwrite]
      Loads a dataset file (an export, or the format of infra/demo-data.json) with a progress bar.
      Existing items are kept unless --overwrite is given.
  load FILE [--overwrite]
      Same as import, without the progress bar.
  validate FILE
      Checks a dataset file against the dataset format (docs/dataset.schema.json) without touching
      any table, and names every error with its path (e.g. prices.3.currency): its references too,
      every customer a handle the dataset holds and every zone's domain in it (load checks them
      against the dataset and the table, and writes nothing when one holds nothing). Exit 0 when valid.
  migrate [--dry-run]
      Brings a table written by an earlier version to the current layout (zones stored with their
      records inline become a header item and one item per record; prices and promos get keys
      that start with their product). Idempotent, and safe while the service runs; --dry-run
      only counts what it would migrate.
  repair-counts --customer C [--customer D]...
      Recounts the processes of each customer named and replaces its process counts (what
      pagination.total of GET /v2/processes reads) where they drifted, then its notification
      counts (the notifications' total and the poll's count), then its domain counts per expiry
      day (an expiry range's total); prints what changed. Safe while the
      service runs (a count a write touches meanwhile is recounted).

Every command takes --help.

Environment: TABLE_NAME (default 'registrar'), DYNAMODB_ENDPOINT (DynamoDB Local), AWS_REGION, AWS_PROFILE.
Without DYNAMODB_ENDPOINT or any AWS setting, a running \`npm start\` is used: it writes where it
listens to local-server.json in its data dir (DATA_DIR), or to the temp folder's registrar-sandbox/.`;

class UsageError extends Error {}

async function createKey(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      customer: { type: 'string' },
      user: { type: 'string' },
      permission: { type: 'string', multiple: true, default: [] },
      'usage-plan': { type: 'string' },
    },
  });
  if (!values.customer || !values.user) throw new UsageError('create-key needs --customer and --user.');
  const customer = v.safeParse(Handle, values.customer);
  if (!customer.success) throw new UsageError(`--customer: ${customer.issues[0].message}.`);
  const user = v.safeParse(Handle, values.user);
  if (!user.success) throw new UsageError(`--user: ${user.issues[0].message}.`);
  const permissions = [...new Set(values.permission)].map((p) => {
    const parsed = v.safeParse(Permission, p.toUpperCase());
    if (!parsed.success) throw new UsageError(`Unknown permission '${p}'; known: ${Permission.options.join(', ')}.`);
    return parsed.output;
  });
  if (!(await getCustomer(customer.output))) {
    throw new Error(`Customer '${customer.output}' does not exist in table '${tableName()}'; load it first (npm run admin -- load FILE).`);
  }
  const key = generateApiKey();
  await putApiKey({
    keyHash: hashApiKey(key),
    customer: customer.output,
    user: user.output,
    permissions,
    createdDate: toWireTime(new Date()),
  });
  const usagePlanId = values['usage-plan'] ?? process.env.USAGE_PLAN_ID;
  if (usagePlanId) await register(usagePlanId, [{ keyHash: hashApiKey(key), customer: customer.output, user: user.output }]);
  console.log(`API key for ${customer.output}/${user.output} (permissions: ${permissions.join(', ') || 'none'}):`);
  console.log(key);
  console.error('Store it now: only its hash is kept, it cannot be shown again.');
}

/** Registers keys in the deployed stack's usage plan (infra/usage-plan-keys.ts); loads the API Gateway client only then. */
async function register(usagePlanId: string, owners: KeyOwner[]): Promise<void> {
  const { APIGatewayClient } = await import('@aws-sdk/client-api-gateway');
  const client = new APIGatewayClient({});
  for (const owner of owners) {
    const r = await registerUsageKey(client, usagePlanId, owner);
    console.error(
      `usage plan ${usagePlanId}: ${r.name} ${r.created ? 'created' : 'exists'}, ${r.addedToPlan ? 'added to the plan' : 'already in the plan'}`,
    );
  }
}

async function registerKeys(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { customer: { type: 'string' }, 'usage-plan': { type: 'string' } } });
  const usagePlanId = values['usage-plan'] ?? process.env.USAGE_PLAN_ID;
  if (!values.customer || !usagePlanId) throw new UsageError('register-keys needs --customer and --usage-plan (or USAGE_PLAN_ID).');
  const owners = await listApiKeys(values.customer);
  if (owners.length === 0) throw new Error(`Customer '${values.customer}' has no API keys in table '${tableName()}'.`);
  await register(usagePlanId, owners);
}

async function load(args: string[], command: 'load' | 'import' = 'load'): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { overwrite: { type: 'boolean', default: false } } });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError(`${command} needs exactly one FILE.`);
  const dataset = await readDatasetFile(file);
  const bar = command === 'import' ? progressBar() : undefined;
  let report: Awaited<ReturnType<typeof loadDataset>>;
  try {
    report = await loadDataset(dataset, { overwrite: values.overwrite, onProgress: bar?.update });
  } finally {
    bar?.stop();
  }
  for (const [section, r] of Object.entries(report)) {
    if (r.written + r.kept > 0) console.log(`${section}: ${r.written} written, ${r.kept} kept`);
  }
  console.log(`Loaded ${file} into table '${tableName()}'.`);
}

/**
 * A progress bar on standard error (cli-progress) when it is a terminal; otherwise a line per
 * tenth, so logs of long loads still show progress.
 */
function progressBar(): { update: (done: number, total: number) => void; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { stream: process.stderr, format: 'importing [{bar}] {percentage}% | {value}/{total} items | {eta}s left', hideCursor: true },
      Presets.shades_classic,
    );
    let started = false;
    return {
      update: (done, total) => {
        if (!started) {
          bar.start(total, 0);
          started = true;
        }
        bar.update(done);
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  let shown = -1;
  return {
    update: (done, total) => {
      const tenth = Math.floor((done * 10) / total);
      if (tenth !== shown) {
        shown = tenth;
        console.error(`importing: ${done}/${total} items`);
      }
    },
    stop: () => {},
  };
}

/** The first characters of a key hash shown to operators (enough to name a key unambiguously). */
const shownPrefix = 12;

async function listKeys(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { customer: { type: 'string' } } });
  if (!values.customer) throw new UsageError('list-keys needs --customer.');
  const customer = v.safeParse(Handle, values.customer);
  if (!customer.success) throw new UsageError(`--customer: ${customer.issues[0].message}.`);
  if (!(await getCustomer(customer.output))) throw new Error(`Customer '${customer.output}' does not exist in table '${tableName()}'.`);
  const list = (await listApiKeys(customer.output)).sort(
    (a, b) => a.createdDate.localeCompare(b.createdDate) || a.keyHash.localeCompare(b.keyHash),
  );
  if (list.length === 0) {
    console.log(`Customer '${customer.output}' has no API keys.`);
    return;
  }
  const rows = [
    ['HASH PREFIX', 'USER', 'PERMISSIONS', 'CREATED'],
    ...list.map((k) => [k.keyHash.slice(0, shownPrefix), k.user, k.permissions.join(',') || '-', k.createdDate]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const row of rows)
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}

async function revokeKey(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'usage-plan': { type: 'string' } } });
  const prefix = positionals[0]?.toLowerCase();
  if (!prefix || positionals.length > 1) throw new UsageError('revoke-key needs exactly one PREFIX.');
  if (!/^[0-9a-f]{8,64}$/.test(prefix))
    throw new UsageError('PREFIX must be 8 to 64 hex characters of the key hash (as list-keys shows it).');
  const usagePlanId = values['usage-plan'] ?? process.env.USAGE_PLAN_ID;
  // Against AWS a revoked key must stop at once: its usage-plan key goes and the authorizer cache is flushed.
  if (!usagePlanId && !process.env.DYNAMODB_ENDPOINT && !localServer) {
    throw new UsageError('revoke-key against AWS needs --usage-plan (or USAGE_PLAN_ID), so the key stops working at once.');
  }
  const key = await uniqueKey(prefix);
  if (!(await deleteApiKey(key.keyHash))) throw new Error(`The key ${prefix} disappeared while revoking it.`);
  console.log(`Revoked API key ${key.keyHash.slice(0, shownPrefix)} of ${key.customer}/${key.user}.`);
  if (!usagePlanId) {
    // A local server drops its cached answers at once when it is the one the CLI works on.
    if (localServer && (await flushLocalAuthorizerCache(localServer))) {
      console.log(`The local server at ${localServer.url} refuses it from now on (its authorizer cache flushed).`);
    } else {
      console.error(
        `A server on this table that cached the key's answer accepts it for up to ${authorizerCacheSeconds} s more (its authorizer cache); restart it to stop it at once.`,
      );
    }
    return;
  }
  const { APIGatewayClient } = await import('@aws-sdk/client-api-gateway');
  const r = await retireUsageKey(new APIGatewayClient({}), usagePlanId, key);
  console.log(
    `usage plan ${usagePlanId}: ${r.name} ${r.removed ? 'removed' : 'was not registered'}; authorizer cache flushed on ${r.flushed.join(', ') || 'no stage'}.`,
  );
  console.log(
    `The deployed API refuses it from now on: API Gateway no longer knows its usage-plan key, and its authorizer answers cached for up to ${authorizerCacheSeconds} s are flushed.`,
  );
}

/** The one key whose hash starts with `prefix`, found by reading them all (operator path, not a request path). */
async function uniqueKey(prefix: string): Promise<KeyOwner> {
  const matches = (await scanTable())
    .filter((item) => item.entity === 'apiKey' && typeof item.keyHash === 'string' && item.keyHash.startsWith(prefix))
    .map((item) => item as unknown as KeyOwner);
  if (matches.length === 0) throw new Error(`No API key hash starts with '${prefix}'.`);
  if (matches.length > 1) {
    const names = matches.map((k) => `${k.keyHash.slice(0, shownPrefix)} (${k.customer}/${k.user})`).join(', ');
    throw new Error(`'${prefix}' is ambiguous: it matches ${matches.length} keys: ${names}. Give more characters.`);
  }
  return matches[0] as KeyOwner;
}

async function exportCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string' } } });
  if (positionals.length > 0) throw new UsageError(`export takes no arguments (got '${positionals[0]}'); use --out FILE.`);
  const dataset = await exportDataset();
  const text = `${JSON.stringify(dataset, null, 2)}\n`;
  const counts = Object.entries(dataset)
    .map(([section, value]) => `${section}: ${Array.isArray(value) ? value.length : Object.keys(value as object).length}`)
    .join(', ');
  if (values.out) {
    await writeFile(values.out, text);
    console.error(`Exported table '${tableName()}' to ${values.out} (${counts}).`);
  } else {
    process.stdout.write(text);
    console.error(`Exported table '${tableName()}' (${counts}).`);
  }
}

async function migrate(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean', default: false } } });
  const report = await migrateTable({
    dryRun: values['dry-run'],
    onZone: (domainName, records) => console.error(`zone ${domainName}: ${records} records, now one item each`),
  });
  const verb = values['dry-run'] ? 'would be migrated' : 'migrated';
  console.log(
    `Table '${tableName()}': ${report.zonesInline} zones with inline records found, ${values['dry-run'] ? report.zonesInline : report.zonesMigrated} ${verb}.`,
  );
  console.log(
    `Providers not yet listed: ${report.providersUnlisted ?? 0}, ${values['dry-run'] ? (report.providersUnlisted ?? 0) : (report.providersListed ?? 0)} ${verb}.`,
  );
  console.log(
    `Customers not yet listed: ${report.customersUnlisted ?? 0}, ${values['dry-run'] ? (report.customersUnlisted ?? 0) : (report.customersListed ?? 0)} ${verb}.`,
  );
  console.log(
    `PREMIUM zones without their paid-until time or its due entry: ${report.zonesPremiumUndue ?? 0}, ${values['dry-run'] ? (report.zonesPremiumUndue ?? 0) : (report.zonesPremiumDueListed ?? 0)} ${verb}.`,
  );
  console.log(
    `Processes without their stored detail status: ${report.processesWithoutDetail ?? 0}, ${values['dry-run'] ? (report.processesWithoutDetail ?? 0) : (report.processesDetailed ?? 0)} ${verb}.`,
  );
  console.log(
    `Webhooks with a secret stored in the clear: ${report.webhooksPlain ?? 0}, ${values['dry-run'] ? (report.webhooksPlain ?? 0) : (report.webhooksSealed ?? 0)} sealed.`,
  );
  console.log(
    `Notifications without a retention: ${report.notificationsWithoutExpiry ?? 0}, ${values['dry-run'] ? (report.notificationsWithoutExpiry ?? 0) : (report.notificationsExpiring ?? 0)} ${verb}; customers whose notification counts were repaired: ${report.notificationCountsRepaired ?? 0}.`,
  );
  console.log(
    `Domains in the layout before the domain API: ${report.domainsOld ?? 0}, ${values['dry-run'] ? (report.domainsOld ?? 0) : (report.domainsMigrated ?? 0)} ${verb}; customers whose domain counts per expiry day were rebuilt: ${report.domainExpiryDaysRepaired ?? 0}.`,
    `Contacts in an earlier shape: ${report.contactsOldShape ?? 0}, ${values['dry-run'] ? (report.contactsOldShape ?? 0) : (report.contactsMigrated ?? 0)} ${verb}.`,
  );
}

/** Checks a dataset file and names every error with its path; exit code 1 when it has any. */
async function validate(args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new UsageError('validate needs exactly one FILE.');
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} cannot be read as JSON: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const problems = datasetProblems(data);
  // A valid dataset's references: every customer a handle the dataset holds, every zone's domain in it.
  if (problems.length === 0) problems.push(...(await referenceProblems(parseDataset(data))));
  if (problems.length === 0) {
    const sections = Object.entries(data as Record<string, unknown>)
      .filter(([name]) => name !== '$schema')
      .map(([name, items]) => `${name} ${Array.isArray(items) ? items.length : 1}`);
    console.log(`${file}: valid (${sections.join(', ') || 'empty'}).`);
    return;
  }
  for (const problem of problems) console.error(`${file}: ${problem}`);
  console.error(`${file}: ${problems.length} error${problems.length === 1 ? '' : 's'}.`);
  process.exitCode = 1;
}

async function repairCounts(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { customer: { type: 'string', multiple: true } } });
  const customers = values.customer ?? [];
  if (customers.length === 0) throw new UsageError('repair-counts needs at least one --customer.');
  for (const customer of customers) {
    const repair = await repairProcessCounts(v.parse(Handle, customer));
    const changed = Object.entries(repair.changed).map(([name, c]) => `${name} ${c.before} -> ${c.after}`);
    console.log(
      `${customer}: ${repair.processes} processes; ${changed.length === 0 ? 'the counts were exact' : `repaired ${changed.join(', ')}`}.`,
    );
    const notifications = await repairNotificationCounts(v.parse(Handle, customer));
    const moved = Object.entries(notifications.changed).map(([name, c]) => `${name} ${c.before} -> ${c.after}`);
    console.log(
      `${customer}: ${notifications.notifications} notifications; ${moved.length === 0 ? 'the counts were exact' : `repaired ${moved.join(', ')}`}.`,
    );
    const days = await repairExpiryDayCounts(v.parse(Handle, customer));
    console.log(`${customer}: domain counts per expiry day: ${days === 0 ? 'exact' : `${days} repaired`}.`);
  }
}

/** Per command: its usage line (for --help) and what it runs. */
const commands: Record<string, { help: string; run: (args: string[]) => Promise<void> }> = {
  'create-key': { help: 'create-key --customer C --user U [--permission DESIGNATED_AGENT]... [--usage-plan ID]', run: createKey },
  'list-keys': { help: 'list-keys --customer C', run: listKeys },
  'revoke-key': { help: 'revoke-key PREFIX [--usage-plan ID]   (8+ hex characters of the key hash, from list-keys)', run: revokeKey },
  export: { help: 'export [--out FILE]', run: exportCommand },
  import: { help: 'import FILE [--overwrite]', run: (args) => load(args, 'import') },
  load: { help: 'load FILE [--overwrite]', run: (args) => load(args, 'load') },
  migrate: { help: 'migrate [--dry-run]', run: migrate },
  'register-keys': { help: 'register-keys --customer C [--usage-plan ID]', run: registerKeys },
  validate: { help: 'validate FILE   (every error with its path; no table is touched)', run: validate },
  'repair-counts': { help: 'repair-counts --customer C [--customer D]...', run: repairCounts },
};

/** One command's help: its usage line and its paragraph of the CLI's usage, and the environment it reads. */
function commandUsage(command: string, line: string): string {
  const lines = usage.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${command} `) || l === `  ${command}`);
  const paragraph: string[] = [];
  for (let i = start + 1; start >= 0 && i < lines.length && (lines[i] as string).startsWith('      '); i++)
    paragraph.push((lines[i] as string).slice(4));
  const environment = lines.find((l) => l.startsWith('Environment:')) ?? '';
  return `Usage: npm run admin -- ${line}\n\n${paragraph.join('\n')}\n\n${environment}`;
}

/** The running `npm start` the CLI works on, when neither DYNAMODB_ENDPOINT nor any AWS setting names a table. */
let localServer: LocalServerInfo | undefined;

const awsSettings = ['AWS_PROFILE', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_CONTAINER_CREDENTIALS_FULL_URI'];

/** Finds the local server's table when nothing else names one, and says so on standard error. */
function useLocalServer(): void {
  if (process.env.DYNAMODB_ENDPOINT || awsSettings.some((name) => process.env[name])) return;
  const file = localServerFile();
  localServer = readLocalServerFile(file);
  if (!localServer) return;
  process.env.DYNAMODB_ENDPOINT = localServer.dynamodbEndpoint;
  process.env.TABLE_NAME ??= localServer.tableName;
  console.error(`admin: the local server at ${localServer.url} (table '${tableName()}' on ${localServer.dynamodbEndpoint}; from ${file})`);
}

/** An error the AWS SDK raises when there is no table to reach at all, in the CLI's words. */
function noTable(error: unknown): string | undefined {
  const name = (error as Error)?.name;
  const message = String((error as Error)?.message ?? '');
  if (name !== 'CredentialsProviderError' && !/Could not load credentials|Region is missing/i.test(message)) return undefined;
  return `no table to work on: start the local sandbox (npm start), or set DYNAMODB_ENDPOINT to a DynamoDB Local (the ready line of npm start names it), or give AWS credentials and a region (AWS_PROFILE, AWS_REGION) for a deployed table.`;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!rest.includes('--help') && !rest.includes('-h') && command !== 'validate') useLocalServer();
    const known = command === undefined ? undefined : commands[command];
    if (known && (rest.includes('--help') || rest.includes('-h'))) {
      console.log(commandUsage(command as string, known.help));
      return 0;
    }
    if (known) {
      await known.run(rest);
      return typeof process.exitCode === 'number' ? process.exitCode : 0;
    }
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(usage);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`Unknown command '${command}'.`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    console.error(`admin ${command}: ${noTable(error) ?? (error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

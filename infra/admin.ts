import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { generateApiKey, hashApiKey } from '../shared/auth/api-keys.ts';
import { listApiKeys, putApiKey } from '../shared/db/repositories/api-keys.ts';
import { getCustomer } from '../shared/db/repositories/customers.ts';
import { tableName } from '../shared/db/table.ts';
import { Handle, Permission } from '../shared/schemas/primitives.ts';
import { toWireTime } from '../shared/time.ts';
import { loadDataset, readDatasetFile } from './dataset.ts';
import { type KeyOwner, registerUsageKey } from './usage-plan-keys.ts';

/**
 * Operator commands against the table named by TABLE_NAME (default 'registrar'), on DynamoDB Local
 * (DYNAMODB_ENDPOINT) or AWS (the standard AWS environment: AWS_PROFILE / AWS_REGION / keys).
 */
const usage = `Usage: npm run admin -- <command> [options]

Commands:
  create-key --customer C --user U [--permission P]... [--usage-plan ID]
      Creates an API key for user U of customer C and prints it once; only its hash is stored.
      Permissions: DESIGNATED_AGENT. With --usage-plan (or USAGE_PLAN_ID), against a deployed
      stack, also registers the key in the stack's usage plan (the UsagePlanId output), which
      gives it its per-key throttle and quota; without that API Gateway refuses the key (403).
  register-keys --customer C [--usage-plan ID]
      Registers every existing key of customer C in the usage plan (idempotent), e.g. after load.
  load FILE [--overwrite]
      Loads a dataset file (the format of infra/demo-data.json). Existing items are kept unless
      --overwrite is given.

Environment: TABLE_NAME (default 'registrar'), DYNAMODB_ENDPOINT (DynamoDB Local), AWS_REGION, AWS_PROFILE.`;

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
    if (!parsed.success) throw new UsageError(`Unknown permission '${p}'; known: DESIGNATED_AGENT.`);
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
    console.error(`usage plan ${usagePlanId}: ${r.name} ${r.created ? 'created' : 'exists'}, ${r.addedToPlan ? 'added to the plan' : 'already in the plan'}`);
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

async function load(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { overwrite: { type: 'boolean', default: false } } });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError('load needs exactly one FILE.');
  const dataset = await readDatasetFile(file);
  const report = await loadDataset(dataset, { overwrite: values.overwrite });
  for (const [section, r] of Object.entries(report)) {
    if (r.written + r.kept > 0) console.log(`${section}: ${r.written} written, ${r.kept} kept`);
  }
  console.log(`Loaded ${file} into table '${tableName()}'.`);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'create-key':
        await createKey(rest);
        return 0;
      case 'load':
        await load(rest);
        return 0;
      case 'register-keys':
        await registerKeys(rest);
        return 0;
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
    console.error(`admin ${command}: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

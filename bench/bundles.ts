import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { type BundledImplementations, esbuildOptions } from '../infra/bundling.ts';
import { localSandboxEnvironment } from '../infra/stages.ts';
import type { AuthorityImplementation, RegistryImplementation } from '../shared/integrations.ts';
import { authorizerDir, integrationSettings, jobs, routes, streamConsumers } from '../shared/routes.ts';

/** Building and timing the Lambda bundles exactly as the stack deploys them (infra/bundling.ts). */

const run = promisify(execFile);
export const projectRoot = join(import.meta.dirname, '..');

/** Every function of the stack: the routes, the jobs, the stream consumers and the authorizer; `get` for a GET route's. */
export function stackFunctions(): { id: string; entry: string; get?: true }[] {
  const entry = (dir: string) => join('functions', dir, 'handler.ts');
  return [
    ...routes.map((r) => ({ id: r.id, entry: entry(r.dir), ...(r.method === 'GET' ? { get: true as const } : {}) })),
    ...jobs.map((j) => ({ id: j.id, entry: entry(j.dir) })),
    ...streamConsumers.map((c) => ({ id: c.id, entry: entry(c.dir) })),
    { id: 'authorizer', entry: entry(authorizerDir) },
  ];
}

/** The baseline: only the DynamoDB document client (bench/baseline.ts). */
export const baselineEntry = join('bench', 'baseline.ts');

/** The implementations of the stage the bench bundles for and runs as: the sandbox stage's (deployedSettings below). */
export const benchImplementations: BundledImplementations = {
  authority: localSandboxEnvironment[integrationSettings.authority] as AuthorityImplementation,
  dns: 'sandbox',
  registry: localSandboxEnvironment[integrationSettings.registry] as RegistryImplementation,
};

/**
 * Bundles `entry` into `outDir/<name>/index.mjs` (+ .map) as deployed on the sandbox stage;
 * `trimmed: false` leaves out the Lambda-only module substitutions, to show what they save.
 * Answers the file and its size.
 */
export async function bundle(entry: string, outDir: string, name: string, trimmed = true): Promise<{ file: string; bytes: number }> {
  const file = join(outDir, name, 'index.mjs');
  const options = esbuildOptions(entry, file, projectRoot, benchImplementations);
  await build(trimmed ? options : { ...options, alias: {} });
  return { file, bytes: statSync(file).size };
}

/**
 * The settings a deployed function starts with (the sandbox stage's integrations, and where its
 * secret is: never read while importing), so a bundle loads as it does on Lambda.
 */
const deployedSettings = {
  ...localSandboxEnvironment,
  // The sandbox stage's DNS choice (the jobs and stream consumers that push zones read it at start).
  [integrationSettings.dns]: benchImplementations.dns,
  ONE_TIME_LINK_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:bench-one-time-link',
};

/** The Node options the deployed functions run with (the stack's NODE_OPTIONS). */
export const deployedNodeOptions = ['--enable-source-maps'];

/** Import time of a bundle in fresh `node` processes (one per run), in ms, sorted. */
export async function importTimes(file: string, runs: number): Promise<number[]> {
  const script = join(projectRoot, 'bench', 'import-time.mjs');
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await run(process.execPath, [...deployedNodeOptions, script, file], {
      env: { PATH: process.env.PATH ?? '', ...deployedSettings },
    });
    out.push(Number(stdout.trim()));
  }
  return out.sort((a, b) => a - b);
}

/**
 * Invokes a built bundle's handler in a fresh `node` process whose only AWS credentials are
 * environment variables, as on Lambda, against `endpoint`; answers the handler's result. This
 * proves the trimmed bundle still finds credentials and signs its requests.
 */
export async function invokeBundle(file: string, event: unknown, env: { endpoint: string; table: string }): Promise<unknown> {
  const script = join(projectRoot, 'bench', 'invoke-bundle.mjs');
  const { stdout } = await run(process.execPath, [...deployedNodeOptions, script, file, JSON.stringify(event)], {
    env: {
      PATH: process.env.PATH ?? '',
      ...deployedSettings,
      DYNAMODB_ENDPOINT: env.endpoint,
      TABLE_NAME: env.table,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'benchkey',
      AWS_SECRET_ACCESS_KEY: 'benchsecret',
      AWS_SESSION_TOKEN: 'benchtoken',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
  });
  return JSON.parse(stdout);
}

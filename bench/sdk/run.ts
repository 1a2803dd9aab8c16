import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { demoFixtures } from './fixtures.ts';
import { type Outcome, report } from './outcome.ts';
import { runPhp } from './php.ts';
import { runTs } from './ts.ts';

/**
 * Runs one official SDK against a running service (`npm start`, demo data loaded) and prints, per
 * call, whether it passed and why not; exits 1 when a counted call failed. Not part of `npm test`:
 * the SDKs' sources are not in the repository. docs/sdk-runs.md says how to run it and the figures.
 */
const usage = `Usage: npm run sdk -- <ts|php> <path of the SDK checkout> [--url http://127.0.0.1:3000]

  ts   realtimeregister/realtimeregister-ts; run \`npm install --no-save axios qs\` in the checkout first
  php  realtimeregister/realtimeregister-php; PHP and the SDK's libraries are Debian packages, fetched
       without root into node_modules/.cache/debian on the first run (env PHP to use another php binary)

  --url  the service's base URL, without /v2 (env SDK_RUN_URL; default http://127.0.0.1:3000)`;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const [sdk, checkout] = positionals;
  if (values.help || (sdk !== 'ts' && sdk !== 'php') || checkout === undefined) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const path = resolve(checkout);
  if (!existsSync(path)) {
    console.error(`No SDK checkout at ${path}`);
    return 2;
  }
  let url = values.url ?? process.env.SDK_RUN_URL ?? 'http://127.0.0.1:3000';
  // Trailing slashes cut by hand: a `/\/+$/` replace backtracks on a long run of slashes.
  while (url.endsWith('/')) url = url.slice(0, -1);
  if (url.endsWith('/v2')) url = url.slice(0, -3);
  const health = await fetch(`${url}/v2/health`).catch(() => undefined);
  if (health === undefined) {
    console.error(`Nothing answers at ${url}: start the service first (npm start)`);
    return 2;
  }
  const fixtures = demoFixtures();
  const outcomes: Outcome[] = sdk === 'ts' ? await runTs(path, url, fixtures) : await runPhp(path, url, fixtures);
  const failed = report(sdk === 'ts' ? 'realtimeregister-ts' : 'realtimeregister-php', outcomes);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();

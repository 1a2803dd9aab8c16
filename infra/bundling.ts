import type { BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/**
 * How every function is bundled, in one place: the CDK stack deploys with `lambdaBundling`, and
 * the benchmark (bench/) builds the very same bundle with `esbuildOptions` to weigh and time it.
 */

/** Node of the deployed runtime (nodejs24.x). */
export const bundleTarget = 'node24';

/** ESM output needs a `require` for the few CommonJS dependencies bundled into it. */
const requireBanner = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * Modules replaced in the Lambda bundles, by path relative to the project root (esbuild resolves
 * an alias from its working directory, which is the project root for CDK and for the bench):
 * - the SDK's default credential chain by the environment-variable provider, the only source a
 *   Lambda function uses (the runtime puts the role's credentials there);
 * - the SDK's lazily loaded event-stream support, which no DynamoDB operation uses;
 * - `node:http`, read with `process.getBuiltinModule` instead of an ESM import, whose facade would
 *   load all of undici at start (shared/aws/lambda-node-http.ts).
 * Local runs, tests and the admin CLI import the real modules.
 */
export const lambdaAliases: Record<string, string> = {
  '@aws-sdk/credential-provider-node': './shared/aws/lambda-credentials.ts',
  '@smithy/core/event-streams': './shared/aws/no-event-streams.ts',
  'node:http': './shared/aws/lambda-node-http.ts',
};

/** The `bundling` options of every NodejsFunction in the stack. */
export const lambdaBundling: BundlingOptions = {
  minify: true,
  sourceMap: true,
  target: bundleTarget,
  format: 'esm' as OutputFormat,
  mainFields: ['module', 'main'],
  // Bundle the AWS SDK too: tree-shaken, pinned, and no dependence on the runtime's copy.
  externalModules: [],
  banner: requireBanner,
  esbuildArgs: { '--alias': Object.entries(lambdaAliases).map(([from, to]) => `${from}=${to}`) },
};

/** The esbuild options equivalent to `lambdaBundling` (what NodejsFunction passes on its command line). */
export function esbuildOptions(entry: string, outfile: string, projectRoot: string): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: bundleTarget,
    format: 'esm',
    minify: true,
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: requireBanner },
    alias: lambdaAliases,
    logLevel: 'error',
  };
}

import type { BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import type { AuthorityImplementation, DnsImplementation, RegistryImplementation } from '../shared/integrations.ts';

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

/** The implementations a stage runs that decide what its bundles carry. */
export interface BundledImplementations {
  authority: AuthorityImplementation;
  dns: DnsImplementation;
  /** The registry gateway the stage runs; absent: every gateway is bundled. */
  registry?: RegistryImplementation;
  /**
   * Whether the function works with the certificate authority (calls it, rather than only naming
   * it: `namesOnly` in shared/routes.ts); absent: it does. Only such a function carries the ACME client.
   */
  worksWithAuthority?: boolean;
}

/**
 * Constants a stage's bundles are built with, so that a bundle leaves out the clients of
 * integrations the stage does not run (local runs and tests define nothing and have them all):
 * - for a stage whose certificate authority is not ACME, and for a function that only names the
 *   authority (renew, cancel, resend: they open and cancel requests without calling the CA),
 *   `process.env.ACME_CLIENT_BUNDLED` is `'false'`, and the branch that loads the ACME order's
 *   step machine (shared/certificates/authority-acme.ts) is left out, with acme-client and its
 *   HTTP stack (about 1 MB: the DCV job's bundle goes from about 1.3 MB to 270 KB);
 * - for a stage whose certificate authority is not the sandbox, `process.env.SANDBOX_CA_BUNDLED` is
 *   `'false'`, and the sandbox CA's signing (shared/certificates/sandbox-ca.ts, with asn1js) is left
 *   out;
 * - `process.env.BUNDLED_DNS_PROVIDER` is the stage's DNS provider, and the other providers'
 *   branches of shared/dns/select.ts are left out (the Route 53 client, the PowerDNS provider);
 * - `process.env.BUNDLED_REGISTRY_GATEWAY` is the stage's registry gateway, and the other's branch
 *   of shared/registry/select.ts is left out (each gateway is one object with every method of the
 *   port: the upstream `rtr` client is about 24 KB of bundle, the sandbox registry 8 KB).
 */
export function stageDefines({ authority, dns, registry, worksWithAuthority = true }: BundledImplementations): Record<string, string> {
  return {
    ...(authority === 'acme' && worksWithAuthority ? {} : { 'process.env.ACME_CLIENT_BUNDLED': JSON.stringify('false') }),
    ...(authority === 'sandbox' ? {} : { 'process.env.SANDBOX_CA_BUNDLED': JSON.stringify('false') }),
    'process.env.BUNDLED_DNS_PROVIDER': JSON.stringify(dns),
    ...(registry === undefined ? {} : { 'process.env.BUNDLED_REGISTRY_GATEWAY': JSON.stringify(registry) }),
  };
}

/** The `bundling` options of every NodejsFunction of a stack whose stage runs `implementations`. */
export const lambdaBundling = (implementations: BundledImplementations): BundlingOptions => ({
  minify: true,
  sourceMap: true,
  // Stack traces need the mappings only. Without the sources' text the map is about a third of its
  // size, and Node (--enable-source-maps) reads and parses it at every cold start.
  sourcesContent: false,
  target: bundleTarget,
  format: 'esm' as OutputFormat,
  mainFields: ['module', 'main'],
  // Bundle the AWS SDK too: tree-shaken, pinned, and no dependence on the runtime's copy.
  externalModules: [],
  banner: requireBanner,
  esbuildArgs: { '--alias': Object.entries(lambdaAliases).map(([from, to]) => `${from}=${to}`) },
  define: stageDefines(implementations),
});

/** The esbuild options equivalent to `lambdaBundling(implementations)` (what NodejsFunction passes on its command line). */
export function esbuildOptions(entry: string, outfile: string, projectRoot: string, implementations: BundledImplementations): BuildOptions {
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
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: requireBanner },
    alias: lambdaAliases,
    define: stageDefines(implementations),
    logLevel: 'error',
  };
}

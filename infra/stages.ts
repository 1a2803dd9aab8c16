import { type Integration, integrationSettings, type registryImplementations, rtrSettings, type StackSecret } from '../shared/routes.ts';

/**
 * A deployment stage: its name (the API Gateway stage, and part of the stack's name) and the
 * implementation of each integration it runs, chosen here and nowhere else. Every function is
 * handed its integrations' settings; a function started without them refuses to start
 * (shared/settings.ts), so no deployment runs the sandbox by default.
 *
 * A stage that runs a sandbox integration says so by name: its name starts with `sandbox`. The
 * registry has a real implementation (`rtr`, an upstream Realtime Register account:
 * `sandbox-upstream-ote`); the authority has only the sandbox's, so every stage here is a sandbox
 * stage until a real authority exists.
 */
export interface Stage {
  name: string;
  integrations: Record<Integration, 'sandbox'> | { registry: (typeof registryImplementations)[number]; authority: 'sandbox' };
  /** With the registry `rtr`: the upstream Realtime Register account (its key is the secret RTR_API_KEY). */
  upstream?: UpstreamAccount;
}

/** An upstream Realtime Register account: where its API is, the reseller's customer handle there, the registries served through it. */
export interface UpstreamAccount {
  apiUrl: string;
  customer: string;
  registries: readonly string[];
}

/** The stages this build can deploy, by name (`cdk deploy -c stage=<name>`). */
export const stages: Record<string, Stage> = {
  sandbox: { name: 'sandbox', integrations: { registry: 'sandbox', authority: 'sandbox' } },
  /**
   * Transfers through an upstream account at Realtime Register's test environment (OT&E); the
   * account's customer handle and its registries come from the command line
   * (`-c rtrCustomer=<handle> -c rtrRegistries=sidn,verisign`), its key is put into the stack's
   * secret RTR_API_KEY after the first deploy. Still named sandbox: its authority is the sandbox's.
   */
  'sandbox-upstream-ote': {
    name: 'sandbox-upstream-ote',
    integrations: { registry: 'rtr', authority: 'sandbox' },
    upstream: { apiUrl: 'https://api.yoursrs-ote.com', customer: '', registries: [] },
  },
};

/** Throws unless a stage running a sandbox integration is named for it. */
export function checkStage(stage: Stage): Stage {
  const sandboxed = Object.entries(stage.integrations).filter(([, implementation]) => implementation === 'sandbox');
  if (sandboxed.length > 0 && !stage.name.startsWith('sandbox')) {
    throw new Error(
      `Stage '${stage.name}' would run the sandbox ${sandboxed.map(([integration]) => integration).join(' and ')}: a stage that runs a sandbox integration must be named sandbox...`,
    );
  }
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(stage.name))
    throw new Error(`Stage name '${stage.name}' must be lower-case letters, digits and hyphens`);
  return stage;
}

/** The stage named on the command line (`-c stage=<name>`): required, one of `stages`. */
export function stageFromContext(name: unknown): Stage {
  const stage = typeof name === 'string' ? stages[name] : undefined;
  if (!stage) {
    throw new Error(
      `Choose the stage to synthesize or deploy: -c stage=<name>, one of ${Object.keys(stages).join(', ')} (got ${JSON.stringify(name)})`,
    );
  }
  return checkStage(stage);
}

/** The settings naming each integration's implementation, as the functions read them. */
export function integrationEnvironment(stage: Stage, used: readonly Integration[] = []): Record<string, string> {
  return Object.fromEntries(used.map((integration) => [integrationSettings[integration], stage.integrations[integration]]));
}

/** What the local sandbox (`npm start`, the tests, the benchmark) runs: every integration's sandbox, chosen explicitly. */
export const localSandboxEnvironment: Record<string, string> = integrationEnvironment(stages.sandbox as Stage, ['registry', 'authority']);

/**
 * A stage whose registry is an upstream account, completed from the command line: the customer
 * handle (`rtrCustomer`) and the registries (`rtrRegistries`, comma-separated) of the account. Throws
 * naming what is missing; other stages are answered as they are.
 */
export function withUpstreamAccount(stage: Stage, context: (key: string) => unknown): Stage {
  if (stage.integrations.registry !== 'rtr' || !stage.upstream) return stage;
  const customer = String(context('rtrCustomer') ?? stage.upstream.customer).trim();
  const registries = String(context('rtrRegistries') ?? stage.upstream.registries.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(customer)) {
    throw new Error(`Stage '${stage.name}' transfers through an upstream account: name its customer handle with -c rtrCustomer=<handle>`);
  }
  if (registries.length === 0) {
    throw new Error(`Stage '${stage.name}' transfers through an upstream account: name its registries with -c rtrRegistries=sidn,verisign`);
  }
  return { ...stage, upstream: { ...stage.upstream, customer, registries } };
}

/** The upstream account's settings and secret for a function that talks to the registry, when the stage's registry is `rtr`. */
export function upstreamSettings(
  stage: Stage,
  used: readonly Integration[] = [],
): { environment: Record<string, string>; secrets: readonly StackSecret[] } {
  if (!used.includes('registry') || stage.integrations.registry !== 'rtr' || !stage.upstream) return { environment: {}, secrets: [] };
  const { apiUrl, customer, registries } = stage.upstream;
  return {
    environment: { [rtrSettings.apiUrl]: apiUrl, [rtrSettings.customer]: customer, [rtrSettings.registries]: registries.join(',') },
    secrets: ['RTR_API_KEY'],
  };
}

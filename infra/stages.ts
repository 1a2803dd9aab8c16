import {
  type AuthorityImplementation,
  authorityImplementations,
  type DnsImplementation,
  dnsImplementations,
  type Integration,
  integrationSettings,
} from '../shared/routes.ts';

/**
 * A deployment stage: its name (the API Gateway stage, and part of the stack's name) and the
 * implementation of each integration it runs, chosen here and nowhere else. Every function is
 * handed its integrations' settings; a function started without them refuses to start
 * (shared/settings.ts), so no deployment runs the sandbox by default.
 *
 * A stage that runs a sandbox integration says so by name: its name starts with `sandbox`. This
 * build ships the sandbox implementations only, so `sandbox` is the one stage it can deploy; a
 * production stage needs real registry and authority gateways first.
 */
export interface Stage {
  name: string;
  integrations: Record<Exclude<Integration, 'dns' | 'authority'>, 'sandbox'> & {
    /** The certificate authority integration (docs/certificates.md): the sandbox's, or ACME. */
    authority: AuthorityImplementation;
    /** What serves the zones over DNS (docs/dns.md); absent: `sandbox`, nothing does. */
    dns?: DnsImplementation;
  };
}

/**
 * The DNS provider a stage synthesizes with, from `DNS_PROVIDER` at synth time (`DNS_PROVIDER=route53
 * npm run synth`); `sandbox` (no DNS server) when unset.
 */
export function dnsFromEnvironment(value = process.env.DNS_PROVIDER): DnsImplementation {
  const chosen = value?.trim() || 'sandbox';
  if (!(dnsImplementations as readonly string[]).includes(chosen)) {
    throw new Error(`DNS_PROVIDER is '${chosen}'; this build knows only: ${dnsImplementations.join(', ')}`);
  }
  return chosen as DnsImplementation;
}

/**
 * The certificate authority a stage synthesizes with, from `CERTIFICATE_AUTHORITY` at synth time
 * (`CERTIFICATE_AUTHORITY=acme ACME_DIRECTORY_URL=... npm run synth`); `sandbox` when unset.
 */
export function authorityFromEnvironment(value = process.env.CERTIFICATE_AUTHORITY): AuthorityImplementation {
  const chosen = value?.trim() || 'sandbox';
  if (!(authorityImplementations as readonly string[]).includes(chosen)) {
    throw new Error(`CERTIFICATE_AUTHORITY is '${chosen}'; this build knows only: ${authorityImplementations.join(', ')}`);
  }
  return chosen as AuthorityImplementation;
}

/**
 * The ACME settings a stage running the `acme` authority hands the functions that work with the CA,
 * from the environment at synth time: every `ACME_*` variable but the EAB HMAC key, which is a
 * secret (the stack's `ACME_EAB_HMAC_KEY`, set to the CA's value after the first deployment).
 */
export function acmeEnvironment(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const settings = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('ACME_') && !entry[0].startsWith('ACME_EAB_HMAC_KEY') && !!entry[1]?.trim(),
    ),
  );
  if (!Object.keys(settings).some((name) => name.startsWith('ACME_DIRECTORY_URL'))) {
    throw new Error('CERTIFICATE_AUTHORITY=acme needs ACME_DIRECTORY_URL (or ACME_DIRECTORY_URL_<AUTHORITY>[_<LEVEL>]) at synth time');
  }
  return settings;
}

/** The stages this build can deploy, by name (`cdk deploy -c stage=<name>`). */
export const stages: Record<string, Stage> = {
  sandbox: { name: 'sandbox', integrations: { registry: 'sandbox', authority: authorityFromEnvironment(), dns: dnsFromEnvironment() } },
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
  return Object.fromEntries(used.map((integration) => [integrationSettings[integration], stage.integrations[integration] ?? 'sandbox']));
}

/** What the local sandbox (`npm start`, the tests, the benchmark) runs: every integration's sandbox, chosen explicitly. */
export const localSandboxEnvironment: Record<string, string> = integrationEnvironment(
  { name: 'sandbox', integrations: { registry: 'sandbox', authority: 'sandbox' } },
  ['registry', 'authority'],
);

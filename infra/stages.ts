import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import {
  type AuthorityImplementation,
  type DnsImplementation,
  type Integration,
  integrationSettings,
  type RegistryImplementation,
  rtrSettings,
  type StackSecret,
} from '../shared/routes.ts';
import { domainNamePattern } from '../shared/schemas/primitives.ts';

/**
 * A deployment stage's settings, in one file per stage: `stages/<name>.json`, read at synth time
 * (`-c stage=<name>`) and checked against `StageSettings` below (every error named by its path;
 * the JSON Schema docs/stage.schema.json is generated from it: `npm run stage-schema`). The file
 * holds the implementation of each integration with that implementation's settings, the
 * service's name servers and hostmaster, the validation-link base URL, the alarm e-mail and the
 * API's custom domain. Secrets (RTR_API_KEY, ACME_EAB_HMAC_KEY, POWERDNS_API_KEY) are never in
 * it: the stack generates them in Secrets Manager and the operator puts their values there.
 *
 * A stage that runs a sandbox integration says so by name: its name starts with `sandbox`.
 */

/** The folder of the stage files. */
export const stagesDir = join(import.meta.dirname, '..', 'stages');

const HttpsUrl = v.pipe(v.string(), v.url('must be a URL'), v.startsWith('https://', 'must be an https:// URL'));
const HostName = v.pipe(v.string(), v.toLowerCase(), v.regex(domainNamePattern, 'is not a host name'));
const Email = v.pipe(v.string(), v.regex(/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/, 'must be an e-mail address'));
const Handle = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/, 'must be a handle (letters, digits, _ and -)'));

/** What an implementation hands a function that uses its integration: settings (environment) and secrets (by ARN). */
interface Handed {
  environment: Record<string, string>;
  secrets: readonly StackSecret[];
}
const nothing: Handed = { environment: {}, secrets: [] };

/**
 * Every implementation of every integration: its settings in the stage file (valibot entries
 * beside `implementation`) and what a function using it is handed. Adding an implementation is
 * its name in the integration's list (shared/integrations.ts), one entry here keyed by it (the
 * compiler asks for it), and its adapter in the port's selector; the stage file's schema follows.
 */
const implementations = {
  registry: {
    sandbox: { entries: {}, hand: () => nothing },
    /** An upstream Realtime Register account; its API key is the secret RTR_API_KEY. */
    rtr: {
      entries: {
        /** Where the account's API is (`https://api.yoursrs.com`, OT&E: `https://api.yoursrs-ote.com`). */
        apiUrl: HttpsUrl,
        /** The reseller's customer handle at the account. */
        customer: Handle,
        /** The registries served through it. */
        registries: v.pipe(
          v.array(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,40}$/, 'is not a registry name'))),
          v.minLength(1, 'names at least one registry'),
        ),
      },
      hand: (s: { apiUrl: string; customer: string; registries: string[] }): Handed => ({
        environment: {
          [rtrSettings.apiUrl]: s.apiUrl,
          [rtrSettings.customer]: s.customer,
          [rtrSettings.registries]: s.registries.join(','),
        },
        secrets: ['RTR_API_KEY'],
      }),
    },
  },
  authority: {
    sandbox: { entries: {}, hand: () => nothing },
    /** An ACME CA (docs/certificates.md); the EAB HMAC key is the secret ACME_EAB_HMAC_KEY. */
    acme: {
      entries: {
        /** The CA's directory. */
        directoryUrl: HttpsUrl,
        /** Directories of one authority or authority and level, by `<AUTHORITY>[_<LEVEL>]` (`SECTIGO_OV`): ACME_DIRECTORY_URL_<key>. */
        directoryUrls: v.optional(
          v.record(v.pipe(v.string(), v.regex(/^[A-Z0-9_]{1,64}$/, 'must be like SECTIGO or SECTIGO_OV')), HttpsUrl),
        ),
        /** The External Account Binding's key id. */
        eabKeyId: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
      },
      hand: (s: { directoryUrl: string; directoryUrls?: Record<string, string>; eabKeyId?: string }): Handed => ({
        environment: {
          ACME_DIRECTORY_URL: s.directoryUrl,
          ...Object.fromEntries(Object.entries(s.directoryUrls ?? {}).map(([key, url]) => [`ACME_DIRECTORY_URL_${key}`, url])),
          ...(s.eabKeyId ? { ACME_EAB_KID: s.eabKeyId } : {}),
        },
        secrets: ['ACME_EAB_HMAC_KEY'],
      }),
    },
  },
  dns: {
    /** No DNS server: the in-memory sandbox provider (shared/dns/sandbox.ts); the zones are answered by the API only. */
    sandbox: { entries: {}, hand: () => nothing },
    /** PowerDNS Authoritative's HTTP API; its key is the secret POWERDNS_API_KEY. */
    powerdns: {
      entries: {
        apiUrl: HttpsUrl,
        /** The server id in the API's paths; default `localhost`. */
        serverId: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,64}$/, 'is not a server id')), 'localhost'),
      },
      hand: (s: { apiUrl: string; serverId: string }): Handed => ({
        environment: { POWERDNS_API_URL: s.apiUrl, POWERDNS_SERVER_ID: s.serverId },
        secrets: ['POWERDNS_API_KEY'],
      }),
    },
    /** Amazon Route 53, with the function's own role; its hosted zones in a reusable delegation set when one is named. */
    route53: {
      entries: {
        /** A reusable delegation set's id: every hosted zone gets the service's own four name servers. */
        delegationSetId: v.optional(v.pipe(v.string(), v.regex(/^[A-Z0-9]{1,32}$/, 'is not a delegation set id'))),
      },
      hand: (s: { delegationSetId?: string }): Handed => ({
        environment: s.delegationSetId ? { ROUTE53_DELEGATION_SET_ID: s.delegationSetId } : {},
        secrets: [],
      }),
    },
  },
} as const satisfies {
  // One entry per name of the integration's list in shared/integrations.ts, no more and no fewer:
  // a name added there without its entry here (or the other way round) does not compile.
  registry: { [name in RegistryImplementation]: unknown };
  authority: { [name in AuthorityImplementation]: unknown };
  dns: { [name in DnsImplementation]: unknown };
};

/** One integration's setting in the stage file: `{ "implementation": <name>, ...its settings }`. */
function integrationSchema<I extends Integration>(integration: I) {
  const options = Object.entries(implementations[integration]).map(([name, implementation]) =>
    v.strictObject({ implementation: v.literal(name), ...implementation.entries }),
  );
  return v.variant(
    'implementation',
    options as unknown as v.VariantOptions<'implementation'>,
    (issue) => `must name one of: ${Object.keys(implementations[integration]).join(', ')} (got ${JSON.stringify(issue.input)})`,
  );
}

/** Domain checks a minute per API key's user where the stage file does not set `limits.domainChecksPerMinute`. */
export const defaultDomainChecksPerMinute = 100;

/** The stage file. */
export const StageSettings = v.strictObject({
  /** The file's JSON Schema, for editors; ignored. */
  $schema: v.optional(v.string()),
  /** What the stage is for, in words; ignored. */
  description: v.optional(v.string()),
  integrations: v.strictObject({
    /** The registry (docs/transfer.md). */
    registry: integrationSchema('registry'),
    /** The certificate authority (docs/certificates.md). */
    authority: integrationSchema('authority'),
    /** What serves the zones over DNS (docs/dns.md). */
    dns: integrationSchema('dns'),
  }),
  /** The service's DNS: name servers of BASIC zones (the first is the SOA primary), of PREMIUM zones, and the SOA mailbox. */
  dns: v.strictObject({
    nameServers: v.pipe(v.array(HostName), v.minLength(1, 'needs at least one name server')),
    premiumNameServers: v.pipe(v.array(HostName), v.minLength(1, 'needs at least one name server')),
    hostmaster: Email,
  }),
  /** The page one-time validation links lead to (VALIDATION_MANAGER_URL). */
  validationManagerUrl: HttpsUrl,
  /** Limits of the API's callers that differ per stage (docs/domains.md). */
  limits: v.optional(
    v.strictObject({
      /** Domain checks each API key's user may make a minute (DOMAIN_CHECK_LIMIT): 1 to 10000, default 100. */
      domainChecksPerMinute: v.optional(
        v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1), v.maxValue(10_000)),
        defaultDomainChecksPerMinute,
      ),
    }),
    {},
  ),
  /** Where alarms are e-mailed; absent: nobody is subscribed to the alarm topic. */
  alarmEmail: v.optional(Email),
  /** The API's own domain: an API Gateway custom domain (regional) on an ACM certificate of that region, mapped to the stage. */
  customDomain: v.optional(
    v.strictObject({
      domainName: HostName,
      certificateArn: v.pipe(
        v.string(),
        v.regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/, 'must be an ACM certificate ARN'),
      ),
    }),
  ),
});

export type StageSettings = v.InferOutput<typeof StageSettings>;

/** A deployment stage: its name (the API Gateway stage, part of the stack's name) and its file's settings. */
export interface Stage extends StageSettings {
  name: string;
}

/** The implementation each integration of a stage runs. */
export function implementationsOf(stage: Stage): {
  registry: RegistryImplementation;
  authority: AuthorityImplementation;
  dns: DnsImplementation;
} {
  const { registry, authority, dns } = stage.integrations as unknown as Record<Integration, { implementation: string }>;
  return {
    registry: registry.implementation as RegistryImplementation,
    authority: authority.implementation as AuthorityImplementation,
    dns: dns.implementation as DnsImplementation,
  };
}

/** Every problem of a stage file's content, each as `path: message`; none when it is valid. */
export function stageProblems(content: unknown): string[] {
  const result = v.safeParse(StageSettings, content);
  return result.success ? [] : result.issues.map((issue) => `${v.getDotPath(issue) ?? '(the file)'}: ${problemWords(issue)}`);
}

/** What valibot's own messages (`Invalid key: Expected "customer" but received undefined`) say, in the words of the stage file. */
const expectedWords: Record<string, string> = {
  Array: 'a list',
  Object: 'an object',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
};
function problemWords(issue: v.BaseIssue<unknown>): string {
  // The schema's own messages are already in the project's words.
  if (!issue.message.startsWith('Invalid ')) return issue.message;
  if (issue.received === 'undefined') return 'is missing: the setting is required';
  if (issue.type === 'strict_object' && issue.expected === 'never')
    return 'is not a setting of this place in the file (misspelt, or misplaced)';
  if (issue.kind === 'schema' && issue.expected) return `must be ${expectedWords[issue.expected] ?? issue.expected}, not ${issue.received}`;
  return issue.message;
}

/** A stage from its name and its file's content; throws naming the file and every problem by its path. */
export function stageFrom(name: string, content: unknown, file = `stages/${name}.json`): Stage {
  const result = v.safeParse(StageSettings, content);
  if (!result.success) {
    throw new Error(
      `${file} is not a valid stage file:\n${stageProblems(content)
        .map((p) => `  ${p}`)
        .join('\n')}`,
    );
  }
  return checkStage({ ...(result.output as StageSettings), name });
}

/** The stages this build has a file for (`stages/<name>.json`). */
export function stageNames(dir = stagesDir): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** Reads, checks and returns the stage named `name` from its file. */
export function loadStage(name: string, dir = stagesDir): Stage {
  const file = join(dir, `${name}.json`);
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the stage file stages/${name}.json: ${(error as Error).message}`);
  }
  return stageFrom(name, content);
}

/** Throws unless a stage running a sandbox integration is named for it. */
export function checkStage(stage: Stage): Stage {
  const sandboxed = Object.entries(implementationsOf(stage)).filter(([, implementation]) => implementation === 'sandbox');
  if (sandboxed.length > 0 && !stage.name.startsWith('sandbox')) {
    throw new Error(
      `Stage '${stage.name}' would run the sandbox ${sandboxed.map(([integration]) => integration).join(' and ')}: a stage that runs a sandbox integration must be named sandbox...`,
    );
  }
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(stage.name))
    throw new Error(`Stage name '${stage.name}' must be lower-case letters, digits and hyphens`);
  return stage;
}

/** The stage named on the command line (`-c stage=<name>`): required, one with a file in stages/. */
export function stageFromContext(name: unknown, dir = stagesDir): Stage {
  const names = stageNames(dir);
  if (typeof name !== 'string' || !names.includes(name)) {
    throw new Error(`Choose the stage to synthesize or deploy: -c stage=<name>, one of ${names.join(', ')} (got ${JSON.stringify(name)})`);
  }
  return loadStage(name, dir);
}

/** The settings naming each integration's implementation, as the functions read them. */
export function integrationEnvironment(stage: Stage, used: readonly Integration[] = []): Record<string, string> {
  const chosen = implementationsOf(stage);
  return Object.fromEntries(used.map((integration) => [integrationSettings[integration], chosen[integration]]));
}

/** What one integration of the stage hands a function that uses it: its implementation's settings and secrets. */
export function integrationHanded(stage: Stage, integration: Integration): Handed {
  const setting = stage.integrations[integration] as { implementation: string };
  const byName = implementations[integration] as unknown as Record<string, { hand: (s: never) => Handed }>;
  const implementation = byName[setting.implementation] as { hand: (s: never) => Handed };
  return implementation.hand(setting as never);
}

/** The service settings every function of a stage gets (name servers, hostmaster, validation links, the check limit). */
export function serviceEnvironment(stage: Stage): Record<string, string> {
  return {
    DNS_NAMESERVERS: stage.dns.nameServers.join(','),
    DNS_PREMIUM_NAMESERVERS: stage.dns.premiumNameServers.join(','),
    DNS_HOSTMASTER: stage.dns.hostmaster,
    VALIDATION_MANAGER_URL: stage.validationManagerUrl,
    DOMAIN_CHECK_LIMIT: String(stage.limits?.domainChecksPerMinute ?? defaultDomainChecksPerMinute),
  };
}

/** What the local sandbox (`npm start`, the tests, the benchmark) runs: every integration's sandbox, chosen explicitly. */
export const localSandboxEnvironment: Record<string, string> = {
  [integrationSettings.registry]: 'sandbox',
  [integrationSettings.authority]: 'sandbox',
};

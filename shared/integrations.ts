/**
 * The parties outside the service and the secrets a function may be handed, named once: the route
 * table (routes.ts) declares which function uses which, and the modules that choose an
 * implementation at run time (shared/registry/select.ts, shared/certificates/authorities.ts,
 * shared/dns/select.ts) read their settings from here, so they do not bundle the route table.
 */

/**
 * Secrets the deployed stack generates in Secrets Manager. A function that declares one is told
 * where it is (`<NAME>_ARN`) and may read it; it reads the value at run time (shared/aws/secrets.ts),
 * so the value is never in its environment. The local sandbox hands the value itself (`<NAME>`).
 */
export type StackSecret = 'ONE_TIME_LINK_SECRET' | 'RTR_API_KEY' | 'POWERDNS_API_KEY' | 'ACME_EAB_HMAC_KEY';

/**
 * The parties outside the service a function talks to, each chosen explicitly by the stage
 * (infra/stages.ts) and handed to the function as its setting: without it the function refuses to
 * start (shared/settings.ts). `sandbox` implements each; the registry also has `rtr` (registryImplementations).
 */
export const integrationSettings = { registry: 'REGISTRY_GATEWAY', authority: 'CERTIFICATE_AUTHORITY', dns: 'DNS_PROVIDER' } as const;
export type Integration = keyof typeof integrationSettings;
/** The implementations this build has of each integration. */
export const integrationImplementations = ['sandbox'] as const;
/**
 * The registry's implementations: the sandbox, and `rtr`, an upstream Realtime Register account
 * (shared/registry/rtr.ts) with its settings `RTR_API_URL`, `RTR_CUSTOMER` and the secret `RTR_API_KEY`.
 */
export const registryImplementations = ['sandbox', 'rtr'] as const;
export const rtrSettings = {
  apiUrl: 'RTR_API_URL',
  customer: 'RTR_CUSTOMER',
  registries: 'RTR_REGISTRIES',
  timeoutMs: 'RTR_TIMEOUT_MS',
} as const;
export type RegistryImplementation = (typeof registryImplementations)[number];
/**
 * What serves the managed zones over DNS (`DNS_PROVIDER`, docs/dns.md): PowerDNS Authoritative's
 * HTTP API, or Amazon Route 53; `sandbox`: the in-memory provider (no name server answers the zones).
 * The one list of the DNS adapters' names: the stage file's schema (infra/stages.ts), the selector
 * (shared/dns/select.ts), `npm start` (infra/local/dns.ts) and the bundles follow it.
 */
export const dnsImplementations = ['sandbox', 'powerdns', 'route53'] as const;
/**
 * The certificate authority integration (`CERTIFICATE_AUTHORITY`, docs/certificates.md): the
 * data-driven sandbox authority, or `acme` (RFC 8555, with the ACME_* settings).
 */
export const authorityImplementations = ['sandbox', 'acme'] as const;
export type AuthorityImplementation = (typeof authorityImplementations)[number];
export type DnsImplementation = (typeof dnsImplementations)[number];

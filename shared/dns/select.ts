import { requireSecret, secretValue } from '../aws/secrets.ts';
import { type DnsImplementation, dnsImplementations, integrationSettings } from '../integrations.ts';
import { requiredSetting } from '../settings.ts';
import { PowerDnsProvider } from './powerdns.ts';
import type { DnsProvider } from './provider.ts';
import { Route53Provider } from './route53.ts';
import { SandboxDnsProvider } from './sandbox.ts';

/**
 * The one selector of the DNS port: the adapter the stage chose (`DNS_PROVIDER`, one of
 * `dnsImplementations` in shared/integrations.ts), read when the function starts. A function that
 * serves zones and is started without it, or without its adapter's settings, refuses to start.
 * Every name has an adapter, and every caller gets one:
 * - `sandbox`: the in-memory provider (shared/dns/sandbox.ts): nothing answers on DNS;
 * - `powerdns`: settings `POWERDNS_API_URL`, `POWERDNS_SERVER_ID` (default `localhost`) and the
 *   secret `POWERDNS_API_KEY`;
 * - `route53`: settings `ROUTE53_DELEGATION_SET_ID` and `ROUTE53_KSK_KMS_KEY_ARN`, both optional.
 */
const chosen = requiredSetting(integrationSettings.dns, dnsImplementations);

/**
 * An adapter is in a Lambda bundle only when the stage runs it: `process.env.BUNDLED_DNS_PROVIDER`
 * is replaced by the stage's choice when the function is bundled (infra/bundling.ts), so every
 * entry below but the stage's folds to `notBundled`, and the Route 53 client, the PowerDNS or the
 * sandbox provider go with it. Local runs and tests define nothing and have them all. The
 * comparison stays written out in each entry: esbuild folds it only there.
 */
function notBundled(implementation: string): never {
  throw new Error(
    `${integrationSettings.dns} is '${implementation}', but this function was bundled for a stage running '${process.env.BUNDLED_DNS_PROVIDER}': it carries no client for it`,
  );
}

/** Each adapter's settings checked when the function starts, and how it is made; one entry per name of `dnsImplementations`. */
const adapters: { [name in DnsImplementation]: { check?: () => void; make: () => DnsProvider } } = {
  sandbox: {
    make: () =>
      process.env.BUNDLED_DNS_PROVIDER === undefined || process.env.BUNDLED_DNS_PROVIDER === 'sandbox'
        ? new SandboxDnsProvider()
        : notBundled('sandbox'),
  },
  powerdns: {
    check: () => {
      if (!process.env.POWERDNS_API_URL)
        throw new Error('POWERDNS_API_URL is not set: DNS_PROVIDER=powerdns needs the URL of its HTTP API');
      requireSecret('POWERDNS_API_KEY');
    },
    make: () =>
      process.env.BUNDLED_DNS_PROVIDER === undefined || process.env.BUNDLED_DNS_PROVIDER === 'powerdns'
        ? new PowerDnsProvider({
            apiUrl: process.env.POWERDNS_API_URL as string,
            apiKey: () => secretValue('POWERDNS_API_KEY'),
            serverId: process.env.POWERDNS_SERVER_ID || 'localhost',
          })
        : notBundled('powerdns'),
  },
  route53: {
    make: () =>
      process.env.BUNDLED_DNS_PROVIDER === undefined || process.env.BUNDLED_DNS_PROVIDER === 'route53'
        ? new Route53Provider({
            ...(process.env.ROUTE53_DELEGATION_SET_ID ? { delegationSetId: process.env.ROUTE53_DELEGATION_SET_ID } : {}),
            ...(process.env.ROUTE53_KSK_KMS_KEY_ARN ? { kskKmsKeyArn: process.env.ROUTE53_KSK_KMS_KEY_ARN } : {}),
          })
        : notBundled('route53'),
  },
};

adapters[chosen].check?.();

let provider: DnsProvider | undefined;

/** The provider that serves the zones: the stage's adapter, one per process. */
export function dnsProvider(): DnsProvider {
  if (!provider) provider = adapters[chosen].make();
  return provider;
}

import { requireSecret, secretValue } from '../aws/secrets.ts';
import { dnsImplementations, integrationSettings } from '../integrations.ts';
import { requiredSetting } from '../settings.ts';
import { PowerDnsProvider } from './powerdns.ts';
import type { DnsProvider } from './provider.ts';
import { Route53Provider } from './route53.ts';

/**
 * The DNS provider the stage chose (`DNS_PROVIDER`): `powerdns` (settings `POWERDNS_API_URL`,
 * `POWERDNS_SERVER_ID`, default `localhost`, and the secret `POWERDNS_API_KEY`) or `route53`
 * (settings `ROUTE53_DELEGATION_SET_ID` and `ROUTE53_KSK_KMS_KEY_ARN`, both optional).
 * Read when the function starts; a function that serves zones and is started without it, or
 * without the provider's settings, refuses to start. `sandbox` means that no DNS server serves
 * the zones: there is no provider, and nothing is pushed.
 */
const chosen = requiredSetting(integrationSettings.dns, dnsImplementations);

if (chosen === 'powerdns') {
  if (!process.env.POWERDNS_API_URL) throw new Error('POWERDNS_API_URL is not set: DNS_PROVIDER=powerdns needs the URL of its HTTP API');
  requireSecret('POWERDNS_API_KEY');
}

let provider: DnsProvider | undefined;

/**
 * A provider's client is in a Lambda bundle only when the stage runs that provider:
 * `process.env.BUNDLED_DNS_PROVIDER` is replaced by the stage's choice when the function is bundled
 * (infra/bundling.ts), which leaves the other branches, and the Route 53 client or the PowerDNS
 * provider with them, out of the bundle. Local runs and tests define nothing and have both.
 */
function notBundled(implementation: string): never {
  throw new Error(
    `${integrationSettings.dns} is '${implementation}', but this function was bundled for a stage running '${process.env.BUNDLED_DNS_PROVIDER}': it carries no client for it`,
  );
}

/** The provider that serves the zones; undefined when the stage has none (`sandbox`). */
export function dnsProvider(): DnsProvider | undefined {
  if (chosen === 'sandbox') return undefined;
  if (!provider) {
    if (chosen === 'powerdns') {
      provider =
        process.env.BUNDLED_DNS_PROVIDER === undefined || process.env.BUNDLED_DNS_PROVIDER === 'powerdns'
          ? new PowerDnsProvider({
              apiUrl: process.env.POWERDNS_API_URL as string,
              apiKey: () => secretValue('POWERDNS_API_KEY'),
              serverId: process.env.POWERDNS_SERVER_ID || 'localhost',
            })
          : notBundled(chosen);
    } else {
      provider =
        process.env.BUNDLED_DNS_PROVIDER === undefined || process.env.BUNDLED_DNS_PROVIDER === 'route53'
          ? new Route53Provider({
              ...(process.env.ROUTE53_DELEGATION_SET_ID ? { delegationSetId: process.env.ROUTE53_DELEGATION_SET_ID } : {}),
              ...(process.env.ROUTE53_KSK_KMS_KEY_ARN ? { kskKmsKeyArn: process.env.ROUTE53_KSK_KMS_KEY_ARN } : {}),
            })
          : notBundled(chosen);
    }
  }
  return provider;
}

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

/** The provider that serves the zones; undefined when the stage has none (`sandbox`). */
export function dnsProvider(): DnsProvider | undefined {
  if (chosen === 'sandbox') return undefined;
  if (!provider) {
    if (chosen === 'powerdns') {
      provider = new PowerDnsProvider({
        apiUrl: process.env.POWERDNS_API_URL as string,
        apiKey: () => secretValue('POWERDNS_API_KEY'),
        serverId: process.env.POWERDNS_SERVER_ID || 'localhost',
      });
    } else {
      provider = new Route53Provider({
        ...(process.env.ROUTE53_DELEGATION_SET_ID ? { delegationSetId: process.env.ROUTE53_DELEGATION_SET_ID } : {}),
        ...(process.env.ROUTE53_KSK_KMS_KEY_ARN ? { kskKmsKeyArn: process.env.ROUTE53_KSK_KMS_KEY_ARN } : {}),
      });
    }
  }
  return provider;
}

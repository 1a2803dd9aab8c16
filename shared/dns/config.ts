import * as v from 'valibot';
import { domainNamePattern } from '../schemas/primitives.ts';

/**
 * DNS settings of the service, read from the environment in this one place:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `DNS_NAMESERVERS` | `ns1.registrar-sandbox.example,ns2.registrar-sandbox.example,ns3.registrar-sandbox.example` | the service's name servers for BASIC zones (the first is the SOA primary) |
 * | `DNS_PREMIUM_NAMESERVERS` | `ns1.premium.registrar-sandbox.example,ns2.premium.registrar-sandbox.example,ns3.premium.registrar-sandbox.example` | the same for PREMIUM zones |
 * | `DNS_HOSTMASTER` | `hostmaster@registrar-sandbox.example` | SOA mailbox of new zones |
 * | `DNS_SOA_REFRESH` / `DNS_SOA_RETRY` / `DNS_SOA_EXPIRE` | `10800` / `3600` / `604800` | SOA timers of new zones (seconds) |
 * | `DNS_DEFAULT_TTL` | `3600` | record TTL of new zones (seconds) |
 * | `DNS_NEGATIVE_TTL` | `3600` | SOA minimum: how long resolvers cache "no such name" (RFC 2308) |
 *
 * A zone that names vanity name servers (`ns`) uses those instead of the service's. Deployed, the
 * stack sets the name servers and the hostmaster from the stage file (`dns` in stages/<name>.json),
 * so the defaults here serve `npm start` and the tests only.
 */

const NameServer = v.pipe(v.string(), v.toLowerCase(), v.regex(domainNamePattern, 'is not a host name'));
const NameServers = v.pipe(
  v.string(),
  v.transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  ),
  v.array(NameServer),
  v.minLength(1, 'needs at least one name server'),
);
const Seconds = v.pipe(
  v.string(),
  v.regex(/^\d{1,10}$/, 'must be a whole number of seconds'),
  v.transform(Number),
  v.maxValue(2_147_483_647),
);
const Mailbox = v.pipe(v.string(), v.regex(/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/, 'must be an e-mail address'));

const DnsEnv = v.object({
  DNS_NAMESERVERS: v.optional(NameServers, 'ns1.registrar-sandbox.example,ns2.registrar-sandbox.example,ns3.registrar-sandbox.example'),
  DNS_PREMIUM_NAMESERVERS: v.optional(
    NameServers,
    'ns1.premium.registrar-sandbox.example,ns2.premium.registrar-sandbox.example,ns3.premium.registrar-sandbox.example',
  ),
  DNS_HOSTMASTER: v.optional(Mailbox, 'hostmaster@registrar-sandbox.example'),
  DNS_SOA_REFRESH: v.optional(Seconds, '10800'),
  DNS_SOA_RETRY: v.optional(Seconds, '3600'),
  DNS_SOA_EXPIRE: v.optional(Seconds, '604800'),
  DNS_DEFAULT_TTL: v.optional(Seconds, '3600'),
  DNS_NEGATIVE_TTL: v.optional(Seconds, '3600'),
});

export interface DnsConfig {
  /** Name servers per DNS service. */
  nameServers: { BASIC: string[]; PREMIUM: string[] };
  /** SOA values for a new zone (the transfer use case creates zones with these). */
  zoneDefaults: { hostMaster: string; refresh: number; retry: number; expire: number; ttl: number };
  /** The SOA minimum field (negative-caching TTL). */
  negativeTtl: number;
}

/** Reads and checks the DNS settings; a malformed variable is a deployment error and throws. */
export function readDnsConfig(env: Record<string, string | undefined> = process.env): DnsConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([k, val]) => k.startsWith('DNS_') && val !== undefined && val.trim() !== ''),
  );
  const result = v.safeParse(DnsEnv, present);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '?'} ${i.message}`).join('; ');
    throw new Error(`Invalid DNS configuration: ${problems}`);
  }
  const e = result.output;
  return {
    nameServers: { BASIC: e.DNS_NAMESERVERS, PREMIUM: e.DNS_PREMIUM_NAMESERVERS },
    zoneDefaults: {
      hostMaster: e.DNS_HOSTMASTER,
      refresh: e.DNS_SOA_REFRESH,
      retry: e.DNS_SOA_RETRY,
      expire: e.DNS_SOA_EXPIRE,
      ttl: e.DNS_DEFAULT_TTL,
    },
    negativeTtl: e.DNS_NEGATIVE_TTL,
  };
}

let config: DnsConfig | undefined;

/** The DNS settings of this process (read once; the environment does not change while it runs). */
export function dnsConfig(): DnsConfig {
  config ??= readDnsConfig();
  return config;
}

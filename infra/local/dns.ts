import { join } from 'node:path';
import { type DnsImplementation, dnsImplementations } from '../../shared/integrations.ts';
import { type LocalPowerDns, startPowerDns } from './powerdns.ts';

/**
 * What serves the sandbox's zones over DNS (docs/dns.md), chosen when `npm start` starts:
 * - `DNS_PROVIDER` unset: a PowerDNS started here, beside DynamoDB Local, on a free port of
 *   127.0.0.1 (with a data dir, its database is kept in `<data dir>/powerdns`);
 * - `DNS_PROVIDER=powerdns` with `POWERDNS_API_URL` and `POWERDNS_API_KEY` (and optionally
 *   `POWERDNS_SERVER_ID`): that PowerDNS;
 * - `DNS_PROVIDER=route53`: Amazon Route 53, with the AWS credentials of the environment;
 * - `DNS_PROVIDER=sandbox`: the in-memory sandbox provider; no name server answers the zones;
 * - any other adapter of `dnsImplementations`: that adapter, with its settings from the environment.
 * When the PowerDNS to be started here cannot be had, the sandbox runs without DNS and says why.
 */
export interface LocalDns {
  /** What the ready line says about DNS. */
  line: string;
  powerDns?: LocalPowerDns;
}

export async function openDns(dataDir: string | undefined): Promise<LocalDns> {
  const chosen = process.env.DNS_PROVIDER?.trim();
  if (chosen && !(dnsImplementations as readonly string[]).includes(chosen)) {
    throw new Error(`DNS_PROVIDER is '${chosen}'; one of: ${dnsImplementations.join(', ')} (or unset for a local PowerDNS)`);
  }
  if (chosen === 'sandbox') return { line: 'no DNS server (DNS_PROVIDER=sandbox: the zones are kept in memory)' };
  if (chosen === 'powerdns') {
    if (!process.env.POWERDNS_API_URL || !process.env.POWERDNS_API_KEY) {
      throw new Error(
        'DNS_PROVIDER=powerdns needs POWERDNS_API_URL and POWERDNS_API_KEY (or leave DNS_PROVIDER unset for a local PowerDNS)',
      );
    }
    return { line: `DNS through the PowerDNS at ${process.env.POWERDNS_API_URL}` };
  }
  if (chosen) return { line: `DNS on ${chosen as DnsImplementation}` };
  try {
    const powerDns = await startPowerDns(dataDir !== undefined ? { dataDir: join(dataDir, 'powerdns') } : {});
    process.env.DNS_PROVIDER = 'powerdns';
    process.env.POWERDNS_API_URL = powerDns.apiUrl;
    process.env.POWERDNS_API_KEY = powerDns.apiKey;
    process.env.POWERDNS_SERVER_ID = powerDns.serverId;
    return { line: `DNS on ${powerDns.dnsAddress}:${powerDns.dnsPort}`, powerDns };
  } catch (error) {
    process.env.DNS_PROVIDER = 'sandbox';
    return { line: `no DNS: ${String((error as Error).message ?? error).split('\n')[0]}` };
  }
}

import { promises as dns } from 'node:dns';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { LocalPowerDns } from '../../infra/local/powerdns.ts';
import type { DnsRecord, ZoneView } from '../../shared/dns/zone-view.ts';

/**
 * Helpers of the tests that run against a real PowerDNS (infra/local/powerdns.ts): a resolver on
 * its DNS port, what it answers for a zone view's records, and a switchable TCP path to its API
 * (an outage as the service sees one: connections refused).
 */

/** Node's resolver, asking only the PowerDNS. */
export function resolverOf(pdns: LocalPowerDns): dns.Resolver {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([`${pdns.dnsAddress}:${pdns.dnsPort}`]);
  return resolver;
}

/** Record types whose answers node's resolver reads, as item 4 of the DNS integration lists them. */
export const answeredTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'CAA', 'SRV', 'NS', 'SOA'] as const;

/** A zone view's record as text comparable to an answer: `prio` first for MX and SRV, names without the trailing dot. */
export function viewValue(record: DnsRecord): string {
  const content = record.type === 'MX' || record.type === 'SRV' ? `${record.prio} ${record.content}` : record.content;
  return content.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** What the DNS server answers for one name and type, as the same text; empty for no data. */
export async function answerValues(resolver: dns.Resolver, name: string, type: (typeof answeredTypes)[number]): Promise<string[]> {
  try {
    switch (type) {
      case 'A':
        return await resolver.resolve4(name);
      case 'AAAA':
        return await resolver.resolve6(name);
      case 'CNAME':
        return await resolver.resolveCname(name);
      case 'NS':
        return await resolver.resolveNs(name);
      case 'MX':
        return (await resolver.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`);
      case 'TXT':
        return (await resolver.resolveTxt(name)).map((chunks) => chunks.join('').toLowerCase());
      case 'SRV':
        return (await resolver.resolveSrv(name)).map((s) => `${s.priority} ${s.weight} ${s.port} ${s.name}`);
      case 'CAA':
        return (await resolver.resolveCaa(name)).map((caa) => {
          // The answer holds `critical` and one property named for the tag (node may add `type`).
          const { critical, type: _type, ...rest } = caa as unknown as Record<string, string | number>;
          const [tag, value] = Object.entries(rest)[0] as [string, string];
          return `${critical} ${tag} "${value}"`.toLowerCase();
        });
      case 'SOA': {
        const s = await resolver.resolveSoa(name);
        return [`${s.nsname} ${s.hostmaster} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minttl}`];
      }
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
    throw error;
  }
}

/** The view's records (default ones first) of the answered types, grouped as `name type` -> values. */
export function viewedSets(view: ZoneView): Map<string, string[]> {
  const sets = new Map<string, string[]>();
  for (const record of [...view.defaultRecords, ...view.records]) {
    if (!(answeredTypes as readonly string[]).includes(record.type)) continue;
    const key = `${record.name.toLowerCase()} ${record.type}`;
    sets.set(key, [...(sets.get(key) ?? []), viewValue(record)]);
  }
  return sets;
}

/** For each of the view's record sets: what the view says and what DNS answers, both sorted. */
export async function compareWithDns(resolver: dns.Resolver, view: ZoneView): Promise<{ key: string; view: string[]; dns: string[] }[]> {
  const out: { key: string; view: string[]; dns: string[] }[] = [];
  for (const [key, values] of viewedSets(view)) {
    const [name, type] = key.split(' ') as [string, (typeof answeredTypes)[number]];
    out.push({ key, view: [...new Set(values)].sort(), dns: (await answerValues(resolver, name, type)).sort() });
  }
  return out;
}

/** A TCP path to a port that can be cut (connections refused) and restored on the same port. */
export interface Switch {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function switchablePath(target: { host: string; port: number }): Promise<Switch> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target.port, target.host);
        sockets.add(client).add(upstream);
        const forget = () => {
          sockets.delete(client);
          sockets.delete(upstream);
          client.destroy();
          upstream.destroy();
        };
        client.on('error', forget).on('close', forget);
        upstream.on('error', forget).on('close', forget);
        client.pipe(upstream).pipe(client);
      });
      s.on('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise((resolve) => s.close(resolve));
  };
  await listen();
  return { url: `http://127.0.0.1:${port}`, down, up: listen, close: down };
}

import {
  absoluteName,
  type ChangeHandle,
  DnsChangeRefused,
  type DnsProvider,
  DnsProviderUnavailable,
  type RecordSet,
  type RecordSetChange,
  type ServedZone,
  type ZoneQueryCounts,
  type ZoneSetup,
} from './provider.ts';

/**
 * The DNS provider on PowerDNS Authoritative's HTTP API (`/api/v1`, header `X-API-Key`):
 *
 * - zones are created `Native` (served from PowerDNS's own database, no zone transfers) with the
 *   name servers the service names, and `SOA-EDIT-API: INCREASE`, so every change made through the
 *   API moves the SOA serial, also one that does not carry the SOA (a dns-01 challenge record);
 * - the service's own SOA carries the zone's serial (its last change, shared/dns/zone.ts): it is
 *   written one below, so that PowerDNS's increase lands on the serial the zone view shows;
 * - record sets are replaced and deleted with `PATCH` (`changetype REPLACE` / `DELETE`), each
 *   PATCH applied by PowerDNS in one transaction; a change larger than `maxPatchBytes` is sent in
 *   several, in order;
 * - DNSSEC: the zone is created signed (`dnssec: true`; PowerDNS makes one ECDSA P-256 key and
 *   signs on the fly) and its DS records are read from `cryptokeys`; a key rollover adds a second
 *   ECDSA P-256 combined key (`POST cryptokeys`), both sign until the old one is deleted;
 * - query counts: PowerDNS keeps the last 10,000 queries it answered in its `queries` ring (and
 *   those answered NXDOMAIN in `nxdomain-queries`), counted per `name/TYPE`; a zone's counts are
 *   the entries of its names (`/statistics?includerings=true`).
 *
 * PowerDNS with its SQLite backend answers `500 database is locked` when two writes meet, so this
 * adapter sends one write at a time and retries that answer a few times. A 4xx answer is PowerDNS
 * refusing the change itself (DnsChangeRefused, with its reason); no answer, a timeout or another
 * 5xx is a passing failure (DnsProviderUnavailable).
 */

export interface PowerDnsSettings {
  /** The API's base URL, without `/api/v1` (`http://127.0.0.1:8081`). */
  apiUrl: string;
  apiKey: string;
  /** The server id in the API's paths; `localhost` for a single server. */
  serverId?: string;
  /** How long one API call may take, in milliseconds (30 s by default: a 10,000-record PATCH takes one or two). */
  timeoutMs?: number;
}

/** The largest PATCH body sent at once: under PowerDNS's default `webserver-max-bodysize` of 2 MB. */
export const maxPatchBytes = 1_500_000;
/** How long an error text from PowerDNS may be where it is kept and shown. */
const maxReasonLength = 300;

interface PdnsRecord {
  content: string;
  disabled?: boolean;
}
interface PdnsRrset {
  name: string;
  type: string;
  ttl?: number;
  records?: PdnsRecord[];
  changetype?: 'REPLACE' | 'DELETE';
}
interface PdnsZone {
  name: string;
  dnssec?: boolean;
  rrsets?: PdnsRrset[];
}
interface PdnsStatistic {
  name: string;
  type: string;
  size?: string;
  value?: unknown;
}
interface PdnsCryptoKey {
  id?: number;
  active?: boolean;
  published?: boolean;
  keytype?: string;
  ds?: string[];
  dnskey?: string;
}

/** One below an SOA's serial (RFC 1982 wraps at 2^32), so that SOA-EDIT-API INCREASE serves the serial given. */
export function serialBefore(soa: string): string {
  const parts = soa.trim().split(/\s+/);
  if (parts.length !== 7) return soa;
  const serial = Number(parts[2]);
  if (!Number.isInteger(serial)) return soa;
  parts[2] = String(serial === 0 ? 4_294_967_295 : serial - 1);
  return parts.join(' ');
}

/** Whether `name` (absolute or not, any case) is the zone's name or below it. */
function inZone(name: string, zoneName: string): boolean {
  const n = absoluteName(name);
  const z = absoluteName(zoneName);
  return n === z || n.endsWith(`.${z}`);
}

/** The sum of a ring's counts (`[{name: "www.example.nl/A", value: "3"}]`) over the zone's names. */
export function ringCount(ring: PdnsStatistic | undefined, zoneName: string): number {
  if (!ring || !Array.isArray(ring.value)) return 0;
  let sum = 0;
  for (const entry of ring.value as { name?: unknown; value?: unknown }[]) {
    if (typeof entry.name !== 'string') continue;
    const slash = entry.name.lastIndexOf('/');
    const name = slash >= 0 ? entry.name.slice(0, slash) : entry.name;
    const count = Number(entry.value);
    if (Number.isSafeInteger(count) && count > 0 && inZone(name, zoneName)) sum += count;
  }
  return sum;
}

/** PowerDNS's zone id in a path: the absolute name, percent-encoded (`/` would be `=2F` in PowerDNS ids, never in our names). */
function zonePath(zoneName: string): string {
  return encodeURIComponent(absoluteName(zoneName));
}

function bounded(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > maxReasonLength ? `${oneLine.slice(0, maxReasonLength - 1)}…` : oneLine;
}

/** PowerDNS's error text out of an answer body (`{"error": "..."}`), bounded. */
function reasonOf(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string' && parsed.error !== '') return bounded(parsed.error);
  } catch {
    // not JSON
  }
  return bounded(body || `HTTP ${status}`);
}

function toRecordSet(rrset: PdnsRrset): RecordSet {
  return {
    name: absoluteName(rrset.name),
    type: rrset.type,
    ttl: rrset.ttl ?? 0,
    values: (rrset.records ?? []).filter((r) => !r.disabled).map((r) => r.content),
  };
}

function toPatch(change: RecordSetChange): PdnsRrset {
  const { name, type, ttl, values } = change.recordSet;
  if (change.action === 'delete') return { name: absoluteName(name), type, changetype: 'DELETE' };
  const contents = type === 'SOA' ? values.map(serialBefore) : values;
  return {
    name: absoluteName(name),
    type,
    ttl,
    changetype: 'REPLACE',
    records: contents.map((content) => ({ content, disabled: false })),
  };
}

/** The changes cut into PATCH bodies of at most `maxPatchBytes` each (one record set is never split). */
export function patchBodies(changes: RecordSetChange[], limit = maxPatchBytes): string[] {
  const bodies: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const change of changes) {
    const json = JSON.stringify(toPatch(change));
    if (current.length > 0 && size + json.length + 20 > limit) {
      bodies.push(`{"rrsets":[${current.join(',')}]}`);
      current = [];
      size = 0;
    }
    current.push(json);
    size += json.length + 1;
  }
  if (current.length > 0) bodies.push(`{"rrsets":[${current.join(',')}]}`);
  return bodies;
}

export class PowerDnsProvider implements DnsProvider {
  readonly name = 'powerdns';
  private readonly base: string;
  private readonly apiKey: string | (() => Promise<string>);
  private readonly timeoutMs: number;
  /** Writes go one at a time (SQLite-backed PowerDNS refuses writes that meet). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(settings: Omit<PowerDnsSettings, 'apiKey'> & { apiKey: string | (() => Promise<string>) }) {
    let apiUrl = settings.apiUrl;
    while (apiUrl.endsWith('/')) apiUrl = apiUrl.slice(0, -1);
    this.base = `${apiUrl}/api/v1/servers/${encodeURIComponent(settings.serverId ?? 'localhost')}`;
    this.apiKey = settings.apiKey;
    this.timeoutMs = settings.timeoutMs ?? 30_000;
  }

  /** One API call: the parsed answer, undefined for 404 when `missingOk`; refusals and failures as the port's errors. */
  private async call<T>(method: string, path: string, body?: string, missingOk = false): Promise<T | undefined> {
    const key = typeof this.apiKey === 'string' ? this.apiKey : await this.apiKey();
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${this.base}${path}`, {
          method,
          headers: { 'X-API-Key': key, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), Accept: 'application/json' },
          ...(body !== undefined ? { body } : {}),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (error) {
        throw new DnsProviderUnavailable(`PowerDNS did not answer ${method} ${path.split('?')[0]}: ${bounded((error as Error).message)}`);
      }
      const text = await response.text();
      if (response.ok) return (text ? JSON.parse(text) : undefined) as T | undefined;
      if (response.status === 404 && missingOk) return undefined;
      const reason = reasonOf(response.status, text);
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        if (response.status === 401 || response.status === 403) throw new DnsProviderUnavailable(`PowerDNS refused the API key: ${reason}`);
        throw new DnsChangeRefused(reason);
      }
      if (/database is locked/i.test(reason) && attempt < 5) {
        await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        continue;
      }
      throw new DnsProviderUnavailable(`PowerDNS answered ${response.status}: ${reason}`);
    }
  }

  /** Runs a write after the writes before it. */
  private write<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async zone(zoneName: string): Promise<ServedZone | undefined> {
    const zone = await this.call<PdnsZone>('GET', `/zones/${zonePath(zoneName)}`, undefined, true);
    if (!zone) return undefined;
    const keys = zone.dnssec ? await this.signingKeys(zoneName) : [];
    return {
      name: absoluteName(zone.name),
      recordSets: (zone.rrsets ?? []).map(toRecordSet).filter((set) => set.values.length > 0),
      dnssec: zone.dnssec === true,
      ds: keys.flatMap((k) => k.ds ?? []),
      dnskeys: keys.flatMap((k) => (k.dnskey ? [k.dnskey] : [])),
    };
  }

  /** The zone's active key-signing keys (a combined signing key counts as one). */
  private async signingKeys(zoneName: string): Promise<PdnsCryptoKey[]> {
    const keys = (await this.call<PdnsCryptoKey[]>('GET', `/zones/${zonePath(zoneName)}/cryptokeys`, undefined, true)) ?? [];
    return keys.filter((k) => k.active !== false && k.keytype !== 'zsk');
  }

  private async ds(zoneName: string): Promise<string[]> {
    return (await this.signingKeys(zoneName)).flatMap((k) => k.ds ?? []);
  }

  createZone(zoneName: string, setup: ZoneSetup): Promise<void> {
    const body = JSON.stringify({
      name: absoluteName(zoneName),
      kind: 'Native',
      nameservers: setup.nameServers.map(absoluteName),
      soa_edit_api: 'INCREASE',
      dnssec: setup.dnssec,
    });
    return this.write(async () => {
      await this.call('POST', '/zones', body);
    });
  }

  deleteZone(zoneName: string): Promise<void> {
    return this.write(async () => {
      await this.call('DELETE', `/zones/${zonePath(zoneName)}`, undefined, true);
    });
  }

  setDnssec(zoneName: string, enabled: boolean): Promise<string[]> {
    return this.write(async () => {
      await this.call('PUT', `/zones/${zonePath(zoneName)}`, JSON.stringify({ dnssec: enabled }));
      return enabled ? this.ds(zoneName) : [];
    });
  }

  applyChanges(zoneName: string, changes: RecordSetChange[]): Promise<ChangeHandle> {
    const bodies = patchBodies(changes);
    return this.write(async () => {
      for (const body of bodies) await this.call('PATCH', `/zones/${zonePath(zoneName)}`, body);
      // PowerDNS answers from its database, and a PATCH purges its caches of the zone: served once applied.
      return { zone: absoluteName(zoneName) };
    });
  }

  async isServed(change: ChangeHandle): Promise<boolean> {
    return change.id === undefined;
  }

  addSigningKey(zoneName: string): Promise<void> {
    const body = JSON.stringify({ keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256' });
    return this.write(async () => {
      await this.call('POST', `/zones/${zonePath(zoneName)}/cryptokeys`, body);
    });
  }

  removeSigningKeys(zoneName: string, dnskeys: readonly string[]): Promise<void> {
    return this.write(async () => {
      const keys = await this.signingKeys(zoneName);
      const listed = (k: PdnsCryptoKey) => k.dnskey !== undefined && dnskeys.includes(k.dnskey);
      // Never the zone's last key: a signed zone without one would serve answers nobody can validate.
      if (!keys.some((k) => !listed(k))) throw new DnsChangeRefused(`the zone ${zoneName} has no signing key beside the ones to remove`);
      for (const key of keys.filter(listed)) {
        if (key.id !== undefined) await this.call('DELETE', `/zones/${zonePath(zoneName)}/cryptokeys/${key.id}`, undefined, true);
      }
    });
  }

  async queryCounts(zoneName: string): Promise<ZoneQueryCounts> {
    const stats = (await this.call<PdnsStatistic[]>('GET', '/statistics?includerings=true')) ?? [];
    const ring = (name: string) => stats.find((s) => s.name === name && s.type === 'RingStatisticItem');
    const queries = ring('queries');
    return {
      queries: ringCount(queries, zoneName),
      nxdomain: ringCount(ring('nxdomain-queries'), zoneName),
      window: `the last ${queries?.size ?? '10000'} queries the server answered`,
    };
  }
}

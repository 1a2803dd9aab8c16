import { createHash, generateKeyPairSync } from 'node:crypto';
import {
  absoluteName,
  type ChangeHandle,
  DnsChangeRefused,
  type DnsProvider,
  type RecordSet,
  type RecordSetChange,
  type ServedZone,
  type ZoneSetup,
} from './provider.ts';

/**
 * The sandbox DNS provider (`DNS_PROVIDER=sandbox`): the port implemented in memory. It keeps the
 * zones it is given in the process that runs it and answers them through the port as a provider
 * would, but no name server answers them on DNS: a stage without a DNS server still runs the
 * whole push (the sync, its plan, the recording of what is served), the same way as PowerDNS and
 * Route 53 (the contract suite test/dns-contract.test.ts runs the same cases over all three).
 *
 * It refuses what the real ones refuse and a zone needs (a change to a zone it does not host, a
 * name outside the zone, a CNAME beside other data at one name, an empty record set, a zone that
 * exists already), and applies a change whole or not at all. A change is served at once. Signing
 * makes an ECDSA P-256 key (algorithm 13) for the zone, and its DS is the SHA-256 digest of that
 * key's DNSKEY (RFC 4034 5.1.4), so a DS is what a registry would take; nothing is signed.
 *
 * Deployed, every function instance has its own memory: what one zone sync put there, the next
 * instance does not have, and the reconcile job pushes again what its instance lacks.
 */

interface HeldZone {
  recordSets: Map<string, RecordSet>;
  /** The DNSKEY RDATA of the zone's key, while it is signed. */
  dnskey?: Buffer;
}

const setKey = (set: { name: string; type: string }) => `${absoluteName(set.name)} ${set.type.toUpperCase()}`;

/** A name in wire format (RFC 1035 3.1), lower-case, for the DS digest. */
function wireName(name: string): Buffer {
  const labels = absoluteName(name)
    .split('.')
    .filter((l) => l !== '');
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])), Buffer.from([0])]);
}

/** The key tag of a DNSKEY's RDATA (RFC 4034 appendix B). */
function keyTag(rdata: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i % 2 === 0 ? (rdata[i] as number) << 8 : (rdata[i] as number);
  sum += (sum >> 16) & 0xffff;
  return sum & 0xffff;
}

/** A new key-signing key's DNSKEY RDATA: flags 257 (zone key, SEP), protocol 3, algorithm 13, the P-256 point. */
function newDnskey(): Buffer {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
  return Buffer.concat([Buffer.from([0x01, 0x01, 3, 13]), point]);
}

/** The DS of a zone's key, digest type 2 (SHA-256), in presentation form. */
function dsOf(zoneName: string, dnskey: Buffer): string {
  const digest = createHash('sha256').update(wireName(zoneName)).update(dnskey).digest('hex');
  return `${keyTag(dnskey)} 13 2 ${digest}`;
}

const copy = (set: RecordSet): RecordSet => ({ ...set, values: [...set.values] });

export class SandboxDnsProvider implements DnsProvider {
  readonly name = 'sandbox';
  private readonly zones = new Map<string, HeldZone>();

  private held(zoneName: string): HeldZone {
    const zone = this.zones.get(absoluteName(zoneName));
    if (!zone) throw new DnsChangeRefused(`The sandbox DNS hosts no zone ${absoluteName(zoneName)}`);
    return zone;
  }

  async zone(zoneName: string): Promise<ServedZone | undefined> {
    const name = absoluteName(zoneName);
    const zone = this.zones.get(name);
    if (!zone) return undefined;
    return {
      name,
      recordSets: [...zone.recordSets.values()].map(copy),
      dnssec: zone.dnskey !== undefined,
      ds: zone.dnskey ? [dsOf(name, zone.dnskey)] : [],
    };
  }

  async createZone(zoneName: string, setup: ZoneSetup): Promise<void> {
    const name = absoluteName(zoneName);
    if (this.zones.has(name)) throw new DnsChangeRefused(`The sandbox DNS hosts the zone ${name} already`);
    if (setup.nameServers.length === 0) throw new DnsChangeRefused(`A zone needs at least one name server (${name})`);
    const nameServers = setup.nameServers.map(absoluteName);
    const recordSets = new Map<string, RecordSet>();
    const soa: RecordSet = { name, type: 'SOA', ttl: 3600, values: [`${nameServers[0]} hostmaster.${name} 1 10800 3600 604800 3600`] };
    const ns: RecordSet = { name, type: 'NS', ttl: 3600, values: nameServers };
    recordSets.set(setKey(soa), soa).set(setKey(ns), ns);
    this.zones.set(name, { recordSets, ...(setup.dnssec ? { dnskey: newDnskey() } : {}) });
  }

  async deleteZone(zoneName: string): Promise<void> {
    this.zones.delete(absoluteName(zoneName));
  }

  async setDnssec(zoneName: string, enabled: boolean): Promise<string[]> {
    const zone = this.held(zoneName);
    if (!enabled) {
      delete zone.dnskey;
      return [];
    }
    zone.dnskey ??= newDnskey();
    return [dsOf(absoluteName(zoneName), zone.dnskey)];
  }

  async applyChanges(zoneName: string, changes: RecordSetChange[]): Promise<ChangeHandle> {
    const name = absoluteName(zoneName);
    const zone = this.held(name);
    // Worked out on a copy, and kept only when every change is acceptable: all or nothing.
    const next = new Map(zone.recordSets);
    for (const { action, recordSet } of changes) {
      const owner = absoluteName(recordSet.name);
      if (owner !== name && !owner.endsWith(`.${name}`)) {
        throw new DnsChangeRefused(`${owner} ${recordSet.type} is outside the zone ${name}`);
      }
      if (action === 'delete') {
        next.delete(setKey(recordSet));
        continue;
      }
      if (recordSet.values.length === 0) throw new DnsChangeRefused(`${owner} ${recordSet.type} has no records`);
      next.set(setKey(recordSet), { ...copy(recordSet), name: owner, type: recordSet.type.toUpperCase() });
    }
    const types = new Map<string, string[]>();
    for (const set of next.values()) types.set(set.name, [...(types.get(set.name) ?? []), set.type]);
    for (const [owner, at] of types) {
      if (at.includes('CNAME') && at.length > 1) throw new DnsChangeRefused(`${owner} CNAME: conflicts with other data at that name`);
    }
    zone.recordSets = next;
    return { zone: name };
  }

  async isServed(_change: ChangeHandle): Promise<boolean> {
    return true;
  }
}

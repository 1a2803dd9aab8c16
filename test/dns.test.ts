import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { readDnsConfig } from '../shared/dns/config.ts';
import { defaultRecords, mailboxName, renderRecord, renderZone, replaceDomain, soaSerial } from '../shared/dns/zone.ts';
import { absolute, ownerName, quoteTxt, toZoneFile } from '../shared/dns/zone-file.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { ZoneRecordEntry } from '../shared/model/zone.ts';

const defaults = readDnsConfig({});

const zone: ZoneRecord = {
  id: 7,
  domainName: 'example.nl',
  customer: 'demo',
  managed: true,
  service: 'BASIC',
  dnssec: false,
  hostMaster: 'hostmaster@example.net',
  refresh: 10800,
  retry: 3600,
  expire: 604800,
  ttl: 3600,
  records: [],
  createdDate: '2026-01-01T00:00:00Z',
};

describe('DNS configuration', () => {
  it('has documented defaults', () => {
    expect(defaults).toEqual({
      nameServers: {
        BASIC: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example', 'ns3.registrar-sandbox.example'],
        PREMIUM: [
          'ns1.premium.registrar-sandbox.example',
          'ns2.premium.registrar-sandbox.example',
          'ns3.premium.registrar-sandbox.example',
        ],
      },
      zoneDefaults: { hostMaster: 'hostmaster@registrar-sandbox.example', refresh: 10800, retry: 3600, expire: 604800, ttl: 3600 },
      negativeTtl: 3600,
    });
  });

  it('reads every setting from the environment, trimming and lower-casing name servers', () => {
    expect(
      readDnsConfig({
        DNS_NAMESERVERS: ' NS1.Example.com , ns2.example.com,',
        DNS_PREMIUM_NAMESERVERS: 'a.premium.example,b.premium.example',
        DNS_HOSTMASTER: 'dns@example.com',
        DNS_SOA_REFRESH: '7200',
        DNS_SOA_RETRY: '900',
        DNS_SOA_EXPIRE: '1209600',
        DNS_DEFAULT_TTL: '300',
        DNS_NEGATIVE_TTL: '600',
        UNRELATED: 'x',
      }),
    ).toEqual({
      nameServers: { BASIC: ['ns1.example.com', 'ns2.example.com'], PREMIUM: ['a.premium.example', 'b.premium.example'] },
      zoneDefaults: { hostMaster: 'dns@example.com', refresh: 7200, retry: 900, expire: 1209600, ttl: 300 },
      negativeTtl: 600,
    });
  });

  it('refuses a malformed setting loudly, naming it', () => {
    expect(() => readDnsConfig({ DNS_NAMESERVERS: 'not a host' })).toThrow(/Invalid DNS configuration: DNS_NAMESERVERS/);
    expect(() => readDnsConfig({ DNS_NAMESERVERS: ',,' })).toThrow(/needs at least one name server/);
    expect(() => readDnsConfig({ DNS_SOA_RETRY: '-5' })).toThrow(/DNS_SOA_RETRY must be a whole number of seconds/);
    expect(() => readDnsConfig({ DNS_HOSTMASTER: 'nobody' })).toThrow(/DNS_HOSTMASTER must be an e-mail address/);
  });
});

describe('zone rendering', () => {
  it('replaces ##DOMAIN## in any case', () => {
    expect(replaceDomain('www.##DOMAIN##', 'example.nl')).toBe('www.example.nl');
    expect(replaceDomain('##domain## and ##Domain##', 'example.nl')).toBe('example.nl and example.nl');
  });

  it('writes the hostmaster as an SOA mailbox, escaping dots of the local part', () => {
    expect(mailboxName('hostmaster@example.net')).toBe('hostmaster.example.net');
    expect(mailboxName('first.last@example.net')).toBe('first\\.last.example.net');
  });

  it('derives the SOA serial from the last change', () => {
    expect(soaSerial({ createdDate: '2026-01-01T00:00:00Z' })).toBe(1767225600);
    expect(soaSerial({ createdDate: '2026-01-01T00:00:00Z', updatedDate: '2026-01-01T00:00:01Z' })).toBe(1767225601);
  });

  it("serves the service's name servers per DNS service, and vanity name servers when the zone has them", () => {
    expect(defaultRecords(zone, defaults).map((r) => r.content)).toEqual([
      'ns1.registrar-sandbox.example hostmaster.example.net 1767225600 10800 3600 604800 3600',
      'ns1.registrar-sandbox.example',
      'ns2.registrar-sandbox.example',
      'ns3.registrar-sandbox.example',
    ]);
    expect(defaultRecords({ ...zone, service: 'PREMIUM' }, defaults)[1]?.content).toBe('ns1.premium.registrar-sandbox.example');
    expect(defaultRecords({ ...zone, ns: ['ns.vanity.example'] }, defaults).map((r) => [r.type, r.content.split(' ')[0]])).toEqual([
      ['SOA', 'ns.vanity.example'],
      ['NS', 'ns.vanity.example'],
    ]);
    expect(defaultRecords({ ...zone, ns: [] }, defaults)).toHaveLength(4);
  });

  it('puts prio on MX and SRV records only', () => {
    expect(renderRecord({ name: '##DOMAIN##', type: 'MX', content: 'mx.##DOMAIN##', ttl: 60, prio: 5 }, 'example.nl')).toEqual({
      name: 'example.nl',
      type: 'MX',
      content: 'mx.example.nl',
      ttl: 60,
      prio: 5,
    });
    expect(renderRecord({ name: 'www.##DOMAIN##', type: 'A', content: '192.0.2.1', ttl: 60 }, 'example.nl')).toEqual({
      name: 'www.example.nl',
      type: 'A',
      content: '192.0.2.1',
      ttl: 60,
    });
  });

  it('refuses to read a stored MX or SRV record without prio, or another record with one', () => {
    expect(v.safeParse(ZoneRecordEntry, { name: 'x', type: 'MX', content: 'mx.example.nl', ttl: 60 }).success).toBe(false);
    expect(v.safeParse(ZoneRecordEntry, { name: 'x', type: 'SRV', content: '1 2 t.example.nl', ttl: 60 }).success).toBe(false);
    expect(v.safeParse(ZoneRecordEntry, { name: 'x', type: 'A', content: '192.0.2.1', ttl: 60, prio: 1 }).success).toBe(false);
    expect(v.safeParse(ZoneRecordEntry, { name: 'x', type: 'MX', content: 'mx.example.nl', ttl: 60, prio: 0 }).success).toBe(true);
  });

  it('leaves optional fields out when the zone does not have them', () => {
    const view = renderZone(zone, defaults);
    expect(Object.keys(view)).toEqual([
      'id',
      'name',
      'customer',
      'createdDate',
      'managed',
      'service',
      'dnssec',
      'hostMaster',
      'refresh',
      'retry',
      'expire',
      'ttl',
      'defaultRecords',
      'records',
    ]);
  });
});

describe('zone file syntax', () => {
  it('writes owner names relative to the origin, or absolute outside it', () => {
    expect(ownerName('example.nl', 'example.nl')).toBe('@');
    expect(ownerName('www.example.nl', 'example.nl')).toBe('www');
    expect(ownerName('WWW.Example.NL.', 'example.nl')).toBe('www');
    expect(ownerName('*.example.nl', 'example.nl')).toBe('*');
    expect(ownerName('notexample.nl', 'example.nl')).toBe('notexample.nl.');
    expect(absolute('host.example')).toBe('host.example.');
    expect(absolute('host.example.')).toBe('host.example.');
  });

  it('quotes TXT strings, escaping quotes, backslashes and bytes outside printable ASCII', () => {
    expect(quoteTxt('')).toBe('""');
    expect(quoteTxt('v=spf1 -all')).toBe('"v=spf1 -all"');
    expect(quoteTxt('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
    expect(quoteTxt('é\n')).toBe('"\\195\\169\\010"');
  });

  it('splits TXT data in character-strings of at most 255 bytes', () => {
    expect(quoteTxt('a'.repeat(255))).toBe(`"${'a'.repeat(255)}"`);
    expect(quoteTxt('a'.repeat(256))).toBe(`"${'a'.repeat(255)}" "a"`);
    expect(
      quoteTxt('a'.repeat(600))
        .split(' ')
        .map((s) => s.length - 2),
    ).toEqual([255, 255, 90]);
  });

  it('lists a stored SOA record as a comment: the zone has the service SOA', () => {
    const file = toZoneFile(
      'example.nl',
      renderZone({ ...zone, records: [{ name: '##DOMAIN##', type: 'SOA', content: 'ns.x hm.x 1 2 3 4 5', ttl: 60 }] }, defaults),
    );
    expect(file.split('\n').filter((l) => l.includes('SOA'))).toEqual([
      '@\t3600\tIN\tSOA\tns1.registrar-sandbox.example. hostmaster.example.net. 1767225600 10800 3600 604800 3600',
      "; @\t60\tIN\tSOA\tns.x hm.x 1 2 3 4 5 (the zone's SOA is the service's, above)",
    ]);
  });
});

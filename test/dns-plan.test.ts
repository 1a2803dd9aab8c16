import { describe, expect, it } from 'vitest';
import { plan, sameRecordSet } from '../shared/dns/plan.ts';
import { serialBefore } from '../shared/dns/powerdns.ts';
import type { RecordSet } from '../shared/dns/provider.ts';
import { desiredRecordSets } from '../shared/dns/record-sets.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';

// The pure part of the DNS integration: what a zone serves as record sets, and the plan of changes
// against what a provider serves (no provider involved).

const set = (name: string, type: string, values: string[], ttl = 300): RecordSet => ({ name, type, ttl, values });

describe('plan', () => {
  it('deletes first, replaces what differs, leaves what is equal', () => {
    const served = [
      set('a.x.', 'A', ['192.0.2.1']),
      set('b.x.', 'A', ['192.0.2.2']),
      set('gone.x.', 'TXT', ['"old"']),
      set('c.x.', 'A', ['192.0.2.3'], 60),
    ];
    const desired = [
      set('a.x.', 'A', ['192.0.2.1']),
      set('b.x.', 'A', ['192.0.2.9']),
      set('c.x.', 'A', ['192.0.2.3']),
      set('new.x.', 'MX', ['10 mx.x.']),
    ];
    expect(plan(desired, served)).toEqual([
      { action: 'delete', recordSet: served[2] },
      { action: 'upsert', recordSet: desired[1] },
      { action: 'upsert', recordSet: desired[2] },
      { action: 'upsert', recordSet: desired[3] },
    ]);
    expect(plan(desired, desired)).toEqual([]);
  });

  it('compares values as sets, host names without regard to case, quoted text with it', () => {
    expect(sameRecordSet(set('x.', 'MX', ['10 MX1.X.', '20  mx2.x.']), set('x.', 'MX', ['20 mx2.x.', '10 mx1.x.']))).toBe(true);
    expect(sameRecordSet(set('x.', 'TXT', ['"Hello"']), set('x.', 'TXT', ['"hello"']))).toBe(false);
    expect(sameRecordSet(set('x.', 'A', ['192.0.2.1']), set('x.', 'A', ['192.0.2.1', '192.0.2.2']))).toBe(false);
  });

  it('leaves the provider’s DNSSEC sets and the ACME challenge sets alone', () => {
    const served = [
      set('x.', 'RRSIG', ['A 13 1 60 ...']),
      set('_acme-challenge.www.x.', 'TXT', ['"token"']),
      set('stray.x.', 'TXT', ['"s"']),
    ];
    expect(plan([], served)).toEqual([{ action: 'delete', recordSet: served[2] }]);
  });
});

describe('the record sets of a zone', () => {
  const zone: ZoneRecord = {
    id: 1,
    domainName: 'plan-zone.nl',
    customer: 'demo',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'host.master@plan-zone.nl',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 3600,
    records: [
      { name: '##DOMAIN##', type: 'A', content: '192.0.2.1', ttl: 300 },
      { name: 'plan-zone.nl', type: 'A', content: '192.0.2.2', ttl: 60 },
      { name: '##DOMAIN##', type: 'MX', content: 'mail.##DOMAIN##', ttl: 300, prio: 10 },
      { name: '_sip._tcp.##DOMAIN##', type: 'SRV', content: '60 5060 sip.example.net', ttl: 300, prio: 5 },
      { name: 'txt.##DOMAIN##', type: 'TXT', content: 'say "hi"', ttl: 300 },
      { name: 'www.##DOMAIN##', type: 'URL', content: 'https://example.net/', ttl: 300 },
      { name: '##DOMAIN##', type: 'SOA', content: 'a.example b.example 1 2 3 4 5', ttl: 300 },
    ],
    dcvRecords: [{ name: '_dcv.plan-zone.nl', type: 'CNAME', content: 'dcv.example.net', ttl: 300 }],
    createdDate: '2026-01-01T00:00:00Z',
    updatedDate: '2026-02-01T00:00:00Z',
  };

  it('groups by name and type with the smallest TTL, in presentation form, without service types or a second SOA', () => {
    expect(desiredRecordSets(zone)).toEqual([
      set('plan-zone.nl.', 'SOA', ['ns1.registrar-sandbox.example. host\\.master.plan-zone.nl. 1769904000 10800 3600 604800 3600'], 3600),
      set(
        'plan-zone.nl.',
        'NS',
        ['ns1.registrar-sandbox.example.', 'ns2.registrar-sandbox.example.', 'ns3.registrar-sandbox.example.'],
        3600,
      ),
      set('plan-zone.nl.', 'A', ['192.0.2.1', '192.0.2.2'], 60),
      set('plan-zone.nl.', 'MX', ['10 mail.plan-zone.nl.']),
      set('_sip._tcp.plan-zone.nl.', 'SRV', ['5 60 5060 sip.example.net.']),
      set('txt.plan-zone.nl.', 'TXT', ['"say \\"hi\\""']),
      set('_dcv.plan-zone.nl.', 'CNAME', ['dcv.example.net.']),
    ]);
  });

  it('writes PowerDNS the SOA one below its serial, so its SOA-EDIT-API increase lands on it', () => {
    expect(serialBefore('ns1.x. h.x. 1769904000 10800 3600 604800 3600')).toBe('ns1.x. h.x. 1769903999 10800 3600 604800 3600');
    expect(serialBefore('ns1.x. h.x. 0 1 2 3 4')).toBe('ns1.x. h.x. 4294967295 1 2 3 4');
  });
});

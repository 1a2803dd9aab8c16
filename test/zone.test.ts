import { parseZone } from 'dnsz';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../functions/zone/handler.ts';
import { demoDataFile, readDatasetFile } from '../infra/dataset.ts';
import { startServer } from '../infra/local/server.ts';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import type { DomainRecord } from '../shared/model/domain.ts';
import type { ZoneRecord } from '../shared/model/zone.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

interface WireRecord {
  name: string;
  type: string;
  content: string;
  ttl: number;
  prio?: number;
}

let dkim: string;

beforeAll(async () => {
  const demo = await readDatasetFile(demoDataFile);
  const shop = demo.zones?.find((z) => z.domainName === 'demo-shop.nl');
  dkim = shop?.records.find((r) => r.name.startsWith('shop._domainkey'))?.content ?? '';
  expect(dkim).toMatch(/^v=DKIM1; k=rsa; p=/);
  expect(Buffer.byteLength(dkim)).toBeGreaterThan(255);
});

const basicNs = ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example', 'ns3.registrar-sandbox.example'];
const premiumNs = [
  'ns1.premium.registrar-sandbox.example',
  'ns2.premium.registrar-sandbox.example',
  'ns3.premium.registrar-sandbox.example',
];

const rec = (name: string, type: string, content: string, ttl: number, prio?: number): WireRecord =>
  prio === undefined ? { name, type, content, ttl } : { name, type, content, ttl, prio };

function demoShop() {
  const d = 'demo-shop.nl';
  return {
    id: 101,
    name: 'demo-shop.nl',
    customer: 'demo',
    createdDate: '2024-03-04T11:20:00Z',
    updatedDate: '2026-02-10T08:15:00Z',
    managed: true,
    service: 'BASIC',
    template: 'demo-template',
    link: true,
    dnssec: false,
    hostMaster: 'hostmaster@demo-hosting.example',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 3600,
    defaultRecords: [
      // serial: 2026-02-10T08:15:00Z in seconds since 1970
      rec(d, 'SOA', 'ns1.registrar-sandbox.example hostmaster.demo-hosting.example 1770711300 10800 3600 604800 3600', 3600),
      ...basicNs.map((ns) => rec(d, 'NS', ns, 3600)),
    ],
    records: [
      rec(d, 'A', '192.0.2.10', 3600),
      rec(d, 'AAAA', '2001:db8:10::10', 3600),
      rec(`www.${d}`, 'CNAME', d, 3600),
      rec(d, 'MX', 'mx1.demo-hosting.example', 3600, 10),
      rec(d, 'MX', 'mx2.demo-hosting.example', 3600, 20),
      rec(d, 'TXT', 'v=spf1 include:_spf.demo-hosting.example ~all', 3600),
      rec(`shop._domainkey.${d}`, 'TXT', dkim, 3600),
      rec(`_dmarc.${d}`, 'TXT', 'v=DMARC1; p=quarantine; rua=mailto:dmarc@demo-hosting.example', 3600),
      rec(d, 'CAA', '0 issue "sectigo.com"', 3600),
      rec(d, 'CAA', '0 iodef "mailto:security@demo-hosting.example"', 3600),
      rec(`_sip._tcp.${d}`, 'SRV', '60 5060 sip.demo-hosting.example', 3600, 10),
      rec(`_submission._tcp.${d}`, 'SRV', '5 587 mx1.demo-hosting.example', 3600, 0),
    ],
  };
}

/** Decodes the character-strings of a TXT RDATA (`"a\"b" "c"`) into the text they carry. */
function decodeTxt(rdata: string): string {
  const bytes: number[] = [];
  let i = 0;
  while (i < rdata.length) {
    if (rdata[i] === ' ') {
      i++;
      continue;
    }
    if (rdata[i] !== '"') throw new Error(`unquoted TXT data at ${i}: ${rdata}`);
    i++;
    while (rdata[i] !== '"') {
      if (i >= rdata.length) throw new Error('unterminated TXT string');
      if (rdata[i] === '\\') {
        const digits = rdata.slice(i + 1, i + 4);
        if (/^\d{3}$/.test(digits)) {
          bytes.push(Number(digits));
          i += 4;
        } else {
          bytes.push(rdata.charCodeAt(i + 1));
          i += 2;
        }
      } else {
        bytes.push(...Buffer.from(rdata[i] as string, 'utf8'));
        i++;
      }
    }
    i++;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** What the zone file must say for a JSON record, in master-file form (host names absolute). */
function expectedRdata(r: WireRecord): string {
  const abs = (h: string) => (h.endsWith('.') ? h : `${h}.`);
  switch (r.type) {
    case 'CNAME':
    case 'NS':
      return abs(r.content);
    case 'MX':
      return `${r.prio} ${abs(r.content)}`;
    case 'SRV': {
      const [weight, port, target] = r.content.split(' ');
      return `${r.prio} ${weight} ${port} ${abs(target as string)}`;
    }
    case 'SOA': {
      const [mname, rname, ...rest] = r.content.split(' ');
      return [abs(mname as string), abs(rname as string), ...rest].join(' ');
    }
    default:
      return r.content;
  }
}

/** Parses a zone file with dnsz and checks it says exactly what the JSON says. */
function expectZoneFileMatches(
  file: string,
  domainName: string,
  json: { ttl: number; defaultRecords: WireRecord[]; records: WireRecord[] },
) {
  const parsed = parseZone(file);
  expect(parsed.origin).toBe(domainName);
  expect(parsed.ttl).toBe(json.ttl);
  const fromFile = parsed.records.map((r) => ({
    name: r.name,
    type: r.type,
    ttl: r.ttl,
    class: r.class,
    content: r.type === 'TXT' ? decodeTxt(r.content) : r.content,
  }));
  const fromJson = [...json.defaultRecords, ...json.records]
    .filter((r) => !['ALIAS', 'URL', 'MBOXFW'].includes(r.type))
    .map((r) => ({ name: r.name, type: r.type, ttl: r.ttl, class: 'IN', content: r.type === 'TXT' ? r.content : expectedRdata(r) }));
  expect(fromFile).toEqual(fromJson);
}

describe('GET /v2/domains/{domainName}/zone', () => {
  it('answers the zone with its name (the domain), names resolved, prio exactly for MX and SRV, the template name and default SOA/NS', async () => {
    const res = await call('GET', '/v2/domains/demo-shop.nl/zone');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(res.body).toEqual(demoShop());
    expect(res.raw).not.toContain('##DOMAIN##');
  });

  it('answers a PREMIUM DNSSEC zone with a hidden master on the premium name servers', async () => {
    const res = await call('GET', '/v2/domains/demo-secure.com/zone');
    expect(res.status).toBe(200);
    const d = 'demo-secure.com';
    expect(res.body).toEqual({
      id: 102,
      name: 'demo-secure.com',
      customer: 'demo',
      createdDate: '2024-06-12T09:00:00Z',
      updatedDate: '2026-06-12T09:00:00Z',
      managed: true,
      service: 'PREMIUM',
      master: '198.51.100.53',
      dnssec: true,
      hostMaster: 'dns-admin@demo-hosting.example',
      refresh: 3600,
      retry: 900,
      expire: 1209600,
      ttl: 300,
      defaultRecords: [
        rec(d, 'SOA', 'ns1.premium.registrar-sandbox.example dns-admin.demo-hosting.example 1781254800 3600 900 1209600 3600', 300),
        ...premiumNs.map((ns) => rec(d, 'NS', ns, 300)),
      ],
      records: [
        rec(d, 'A', '198.51.100.80', 300),
        rec(`www.${d}`, 'A', '198.51.100.80', 300),
        rec(d, 'MX', 'mail.demo-secure.com', 300, 10),
        rec(`mail.${d}`, 'A', '198.51.100.25', 300),
        expect.objectContaining({ name: d, type: 'DNSKEY', ttl: 300, content: expect.stringMatching(/^257 3 13 [A-Za-z0-9+/]+=*$/) }),
      ],
    });
  });

  it('answers the other customer its own zone', async () => {
    const res = await call('GET', '/v2/domains/other-site.com/zone', { key: otherKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 103, customer: 'other', managed: true, service: 'BASIC', dnssec: false });
    expect(res.body.template).toBeUndefined();
    expect(res.body.updatedDate).toBeUndefined();
    expect(res.body.records).toEqual([
      rec('other-site.com', 'A', '203.0.113.7', 3600),
      rec('www.other-site.com', 'CNAME', 'other-site.com', 3600),
    ]);
  });

  it("answers another customer's domain exactly like an unknown one: 404 ObjectDoesNotExist", async () => {
    const theirs = await call('GET', '/v2/domains/other-site.com/zone');
    const unknown = await call('GET', '/v2/domains/no-such-domain.com/zone');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Domain 'other-site.com' does not exist.",
      objectType: 'Domain',
      identifier: 'other-site.com',
      requestId: theirs.headers['x-request-id'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      ...theirs.body,
      message: "Domain 'no-such-domain.com' does not exist.",
      identifier: 'no-such-domain.com',
      requestId: unknown.headers['x-request-id'],
    });
  });

  it('answers 404 for a zone whose domain is not in the account yet (transfer-wait.com)', async () => {
    expect((await getZone('transfer-wait.com'))?.customer).toBe('demo');
    const res = await call('GET', '/v2/domains/transfer-wait.com/zone');
    expect(res.status).toBe(404);
    expect(res.body.objectType).toBe('Domain');
  });

  it('answers 404 ObjectDoesNotExist Zone for a domain of the caller without a zone', async () => {
    const domain: DomainRecord = {
      domainName: 'no-zone.nl',
      customer: 'demo',
      registry: 'sidn',
      registrant: 'demo-registrant',
      contacts: [],
      ns: ['ns1.elsewhere.example', 'ns2.elsewhere.example'],
      keyData: [],
      privacyProtect: false,
      autoRenew: true,
      autoRenewPeriod: 12,
      premium: false,
      status: ['OK'],
      createdDate: '2025-01-01T00:00:00Z',
      updatedDate: '2025-01-01T00:00:00Z',
      expiryDate: '2027-01-01T00:00:00Z',
    };
    await putDomain(domain);
    const res = await call('GET', '/v2/domains/no-zone.nl/zone');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Zone 'no-zone.nl' does not exist.",
      objectType: 'Zone',
      identifier: 'no-zone.nl',
      requestId: res.headers['x-request-id'],
    });
  });

  it.each([
    ['not_a_domain', 'is not a valid domain name (lower-case, punycode for IDN)'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, 'must be 3 to 255 characters long'],
    ['-bad.com', 'is not a valid domain name (lower-case, punycode for IDN)'],
  ])('answers 400 ConstraintViolationException for the domain name %#', async (name, message) => {
    const res = await call('GET', `/v2/domains/${name}/zone`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: `domainName: ${message}`,
      // Long values are not echoed back (the house's rule: strings of at most 100 characters).
      violations: [{ field: 'domainName', message, ...(name.length <= 100 && { value: name }) }],
      requestId: res.headers['x-request-id'],
    });
  });

  it('lower-cases the domain name before looking it up', async () => {
    const res = await call('GET', '/v2/domains/Demo-Shop.NL/zone');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(101);
  });

  it('works through the handler directly with an API Gateway event', async () => {
    const res = await invoke(
      handler,
      apiEvent({
        method: 'GET',
        path: '/v2/domains/demo-shop.nl/zone',
        resource: '/v2/domains/{domainName}/zone',
        pathParameters: { domainName: 'demo-shop.nl' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual(demoShop());
  });

  it("reads the table once for a name that is not the caller's, and the records only of the caller's zone", async () => {
    await call('GET', '/v2/domains/demo-shop.nl/zone'); // the key's authorization is cached, as in API Gateway
    for (const [path, status] of [
      ['/v2/domains/demo-shop.nl/zone', 200],
      ['/v2/domains/other-site.com/zone', 404],
      ['/v2/domains/no-such-domain.com/zone', 404],
    ] as const) {
      for (const accept of ['application/json', 'text/dns']) {
        const { result, calls } = await recordTableCalls(() => call('GET', path, { headers: { Accept: accept } }));
        expect(result.status).toBe(status);
        // The caller's zone: one Query of their partition of the name; a 404: that (empty), then the table's read.
        expect(calls).toEqual(status === 200 ? ['QueryCommand'] : ['QueryCommand', 'QueryCommand']);
      }
    }
  });
});

describe('the zone as an RFC 1035 zone file', () => {
  it('answers Accept: text/dns with a zone file that says what the JSON says', async () => {
    const json = await call('GET', '/v2/domains/demo-shop.nl/zone');
    const res = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/dns; charset=utf-8');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expectZoneFileMatches(res.raw, 'demo-shop.nl', json.body);
  });

  it('writes $ORIGIN, $TTL, relative owner names, absolute host names and TXT split at 255 bytes', async () => {
    const res = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } });
    const lines = res.raw.split('\n');
    expect(lines.slice(1, 8)).toEqual([
      '$ORIGIN demo-shop.nl.',
      '$TTL 3600',
      '@\t3600\tIN\tSOA\tns1.registrar-sandbox.example. hostmaster.demo-hosting.example. 1770711300 10800 3600 604800 3600',
      '@\t3600\tIN\tNS\tns1.registrar-sandbox.example.',
      '@\t3600\tIN\tNS\tns2.registrar-sandbox.example.',
      '@\t3600\tIN\tNS\tns3.registrar-sandbox.example.',
      '@\t3600\tIN\tA\t192.0.2.10',
    ]);
    expect(lines).toContain('www\t3600\tIN\tCNAME\tdemo-shop.nl.');
    expect(lines).toContain('@\t3600\tIN\tMX\t10 mx1.demo-hosting.example.');
    expect(lines).toContain('_sip._tcp\t3600\tIN\tSRV\t10 60 5060 sip.demo-hosting.example.');
    expect(lines).toContain('@\t3600\tIN\tCAA\t0 issue "sectigo.com"');
    const dkimLine = lines.find((l) => l.startsWith('shop._domainkey\t')) as string;
    expect(dkimLine).toBe(`shop._domainkey\t3600\tIN\tTXT\t"${dkim.slice(0, 255)}" "${dkim.slice(255)}"`);
    expect(res.raw.endsWith('\n')).toBe(true);
  });

  it('answers Accept: text/plain with the same file as text/plain', async () => {
    const dns = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } });
    const plain = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/plain' } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(plain.raw).toBe(dns.raw);
  });

  it('answers JSON for */*, for no Accept header, for what it cannot serve, and by preference', async () => {
    for (const accept of ['*/*', 'application/json', 'text/html', 'text/*;q=0.5, application/json']) {
      const res = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: accept } });
      expect(res.headers['content-type'], accept).toBe('application/json; charset=utf-8');
    }
    const preferred = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'application/json;q=0.4, text/dns' } });
    expect(preferred.headers['content-type']).toBe('text/dns; charset=utf-8');
  });

  it('quotes and escapes TXT, keeps vanity name servers, and lists service-only records as comments', async () => {
    const domainName = 'edge-cases.nl';
    await putDomain({
      domainName,
      customer: 'demo',
      registry: 'sidn',
      registrant: 'demo-registrant',
      contacts: [],
      ns: ['ns1.vanity.example', 'ns2.vanity.example'],
      keyData: [],
      privacyProtect: false,
      autoRenew: true,
      autoRenewPeriod: 12,
      premium: false,
      status: ['OK'],
      createdDate: '2025-01-01T00:00:00Z',
      updatedDate: '2025-01-01T00:00:00Z',
      expiryDate: '2027-01-01T00:00:00Z',
    });
    const zone: ZoneRecord = {
      id: 900,
      domainName,
      customer: 'demo',
      managed: true,
      service: 'BASIC',
      dnssec: false,
      ns: ['ns1.vanity.example', 'ns2.vanity.example'],
      hostMaster: 'first.last@demo-hosting.example',
      refresh: 7200,
      retry: 1800,
      expire: 1209600,
      ttl: 600,
      records: [
        { name: '##DOMAIN##', type: 'TXT', content: 'say "hi" to C:\\dir; then go', ttl: 600 },
        { name: 'uni.##DOMAIN##', type: 'TXT', content: 'café – ünïcode ✓', ttl: 600 },
        { name: 'long.##DOMAIN##', type: 'TXT', content: 'é'.repeat(200), ttl: 600 },
        { name: 'empty.##DOMAIN##', type: 'TXT', content: '', ttl: 600 },
        { name: '*.##DOMAIN##', type: 'A', content: '192.0.2.99', ttl: 60 },
        { name: 'sub.##DOMAIN##', type: 'NS', content: 'ns.delegated.example', ttl: 600 },
        { name: '##DOMAIN##', type: 'ALIAS', content: 'lb.hosting.example', ttl: 600 },
        { name: 'go.##DOMAIN##', type: 'URL', content: 'https://www.example.com/', ttl: 600 },
        { name: '##DOMAIN##', type: 'MBOXFW', content: 'info -> owner@example.com', ttl: 600 },
      ],
      createdDate: '2025-01-01T00:00:00Z',
    };
    await putZone(zone);
    const json = await call('GET', `/v2/domains/${domainName}/zone`);
    expect(json.status).toBe(200);
    expect(json.body.ns).toEqual(['ns1.vanity.example', 'ns2.vanity.example']);
    expect(json.body.defaultRecords).toEqual([
      rec(domainName, 'SOA', 'ns1.vanity.example first\\.last.demo-hosting.example 1735689600 7200 1800 1209600 3600', 600),
      rec(domainName, 'NS', 'ns1.vanity.example', 600),
      rec(domainName, 'NS', 'ns2.vanity.example', 600),
    ]);
    const file = await call('GET', `/v2/domains/${domainName}/zone`, { headers: { Accept: 'text/dns' } });
    expect(file.headers['content-type']).toBe('text/dns; charset=utf-8');
    const lines = file.raw.split('\n');
    expect(lines).toContain('@\t600\tIN\tTXT\t"say \\"hi\\" to C:\\\\dir; then go"');
    expect(lines).toContain('empty\t600\tIN\tTXT\t""');
    expect(lines).toContain('*\t60\tIN\tA\t192.0.2.99');
    expect(lines).toContain('sub\t600\tIN\tNS\tns.delegated.example.');
    expect(lines).toContain('; @\t600\tIN\tALIAS\tlb.hosting.example (answered by the service; no DNS record type)');
    expect(lines).toContain('; go\t600\tIN\tURL\thttps://www.example.com/ (answered by the service; no DNS record type)');
    // 400 bytes of 'é' in strings of at most 255 bytes: 127 characters (254 bytes) would not do, the split is by bytes.
    const long = lines.find((l) => l.startsWith('long\t')) as string;
    expect(long.match(/"[^"]*"/g)?.map((s) => s.length)).toEqual([2 + 255 * 4, 2 + 145 * 4]);
    expectZoneFileMatches(file.raw, domainName, json.body);
  });
});

describe('ETags of the zone', () => {
  it('answers 304 for If-None-Match with the current tag of each representation, and tags differ between them', async () => {
    const json = await call('GET', '/v2/domains/demo-shop.nl/zone');
    const text = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } });
    // The zone's revision first (what a write's If-Match names), then the body's hash.
    expect(json.headers.etag).toMatch(/^"r\d+\.[A-Za-z0-9_-]{27}"$/);
    expect(text.headers.etag).toMatch(/^"r\d+\.[A-Za-z0-9_-]{27}"$/);
    expect(text.headers.etag).not.toBe(json.headers.etag);

    const json304 = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { 'If-None-Match': json.headers.etag as string } });
    expect(json304.status).toBe(304);
    expect(json304.raw).toBe('');
    const text304 = await call('GET', '/v2/domains/demo-shop.nl/zone', {
      headers: { Accept: 'text/dns', 'If-None-Match': text.headers.etag as string },
    });
    expect(text304.status).toBe(304);
    expect(text304.raw).toBe('');
    // The JSON tag does not match the zone file, so the file is sent.
    const crossed = await call('GET', '/v2/domains/demo-shop.nl/zone', {
      headers: { Accept: 'text/dns', 'If-None-Match': json.headers.etag as string },
    });
    expect(crossed.status).toBe(200);
  });

  it('changes both tags when the zone changes', async () => {
    const json = await call('GET', '/v2/domains/demo-shop.nl/zone');
    const text = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } });
    const zone = (await getZone('demo-shop.nl')) as ZoneRecord;
    await putZone({
      ...zone,
      records: [...zone.records, { name: 'new.##DOMAIN##', type: 'A', content: '192.0.2.77', ttl: 300 }],
      updatedDate: '2026-11-21T10:00:00Z',
    });

    const json2 = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { 'If-None-Match': json.headers.etag as string } });
    expect(json2.status).toBe(200);
    expect(json2.headers.etag).not.toBe(json.headers.etag);
    expect(json2.body.records.at(-1)).toEqual(rec('new.demo-shop.nl', 'A', '192.0.2.77', 300));
    expect(json2.body.defaultRecords[0].content).toContain(' 1795255200 '); // the serial follows the change
    const text2 = await call('GET', '/v2/domains/demo-shop.nl/zone', {
      headers: { Accept: 'text/dns', 'If-None-Match': text.headers.etag as string },
    });
    expect(text2.status).toBe(200);
    expect(text2.headers.etag).not.toBe(text.headers.etag);
    expect(text2.raw).toContain('new\t300\tIN\tA\t192.0.2.77');
  });
});

describe('the zone over HTTP', () => {
  it('serves JSON and the zone file through the local server, with 304s', async () => {
    const server = await startServer({ port: 0 });
    try {
      const headers = { Authorization: 'ApiKey demo-key' };
      const json = await fetch(`${server.url}/v2/domains/demo-secure.com/zone`, { headers });
      expect(json.status).toBe(200);
      expect(((await json.json()) as { service: string }).service).toBe('PREMIUM');
      const file = await fetch(`${server.url}/v2/domains/demo-secure.com/zone`, { headers: { ...headers, Accept: 'text/dns' } });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('text/dns; charset=utf-8');
      const text = await file.text();
      expect(text).toContain('$ORIGIN demo-secure.com.\n$TTL 300\n');
      const again = await fetch(`${server.url}/v2/domains/demo-secure.com/zone`, {
        headers: { ...headers, Accept: 'text/dns', 'If-None-Match': file.headers.get('etag') as string },
      });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    } finally {
      await server.close();
    }
  });
});

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { parseZone } from 'dnsz';
import { describe, expect, it } from 'vitest';
import { sampleDomain, sampleZone } from '../bench/big-data.ts';
import { parseDataset } from '../infra/dataset.ts';
import { db } from '../shared/db/client.ts';
import { keys } from '../shared/db/keys.ts';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { appendDcvRecordsItem, putTemplate, putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { toZoneFile, UnwritableRecord } from '../shared/dns/zone-file.ts';
import type { ZoneView } from '../shared/dns/zone-view.ts';
import type { ZoneRecord, ZoneRecordEntry } from '../shared/model/zone.ts';
import { zoneRecordProblem } from '../shared/model/zone-validation.ts';
import { nonPublicHosts } from './support/addresses.ts';
import { call } from './support/api.ts';
import { demoBody, transfer } from './support/transfer.ts';

/**
 * Issue 18 items 8 and 9: no stored record can inject a line or a directive into a zone file, and
 * a hidden master is a public unicast address.
 */

/** A newline in content: as the review found, it became an NS line of its own. */
const newlineInjection: ZoneRecordEntry = {
  name: 'www.safe.nl',
  type: 'CNAME',
  content: 'safe.nl.\nevil 3600 IN NS ns.evil.example.',
  ttl: 3600,
};
/** A name starting with `$`: as the review found, it became a `$ORIGIN` directive. */
const directiveInjection: ZoneRecordEntry = { name: '$ORIGIN evil.example.', type: 'TXT', content: 'x', ttl: 3600 };

function zone(domainName: string, records: ZoneRecordEntry[]): ZoneRecord {
  return sampleZone(domainName, records, { id: 7001 });
}

function view(records: ZoneView['records']): ZoneView {
  return {
    id: 1,
    name: 'safe.nl',
    customer: 'demo',
    createdDate: '2026-01-01T00:00:00Z',
    managed: true,
    service: 'BASIC',
    dnssec: false,
    hostMaster: 'hostmaster@safe.nl',
    refresh: 10800,
    retry: 3600,
    expire: 604800,
    ttl: 3600,
    defaultRecords: [
      { name: 'safe.nl', type: 'SOA', content: 'ns1.example hostmaster.safe.nl 1 10800 3600 604800 3600', ttl: 3600 },
      { name: 'safe.nl', type: 'NS', content: 'ns1.example', ttl: 3600 },
    ],
    records,
  };
}

describe('records are checked by their type when written', () => {
  it.each([
    [{ name: 'a.nl', type: 'A', content: 'not-an-address', ttl: 60 }, 'content: must be an IPv4 address for a A record'],
    [{ name: 'a.nl', type: 'AAAA', content: '192.0.2.1', ttl: 60 }, 'content: must be an IPv6 address for a AAAA record'],
    [{ name: 'a.nl', type: 'MX', content: 'mx a.nl', ttl: 60, prio: 10 }, 'content: must be a host name (or `.`) for a MX record'],
    [{ name: 'a.nl', type: 'CAA', content: '0 issue (', ttl: 60 }, 'content: has `(`, `)`, `;` or `\\` outside a quoted string'],
    [
      { name: 'a.nl', type: 'CAA', content: '0 issue', ttl: 60 },
      'content: must be `flags tag value` with a tag of issue, issuewild, iodef, contactemail, contactphone, issuemail, issuevmc (e.g. `0 issue "sectigo.com"`) for a CAA record',
    ],
    [
      { name: 'a.nl', type: 'DS', content: '1 13 2 xyz', ttl: 60 },
      'content: must be `key-tag algorithm digest-type digest` for a DS record',
    ],
    [{ name: 'a.nl', type: 'SRV', content: '5 587', ttl: 60, prio: 0 }, 'content: must be `weight port target` for a SRV record'],
    [newlineInjection, 'content: must not hold control characters (CR, LF, TAB, ...)'],
    [directiveInjection, 'name: must be a DNS name (letters, digits, `_`, `-`, a leading `*`, `##DOMAIN##`)'],
    [{ name: 'a\r.nl', type: 'TXT', content: 'x', ttl: 60 }, 'name: must not hold control characters (CR, LF, TAB, ...)'],
    [{ name: 'a.nl', type: 'TXT', content: 'a\u0000b', ttl: 60 }, 'content: must not hold control characters (CR, LF, TAB, ...)'],
  ] as [ZoneRecordEntry, string][])('refuses %j: %s', (record, problem) => {
    expect(zoneRecordProblem(record)).toBe(problem);
  });

  it.each([
    { name: '##DOMAIN##', type: 'A', content: '192.0.2.10', ttl: 3600 },
    { name: '*.##DOMAIN##', type: 'AAAA', content: '2001:db8::1', ttl: 3600 },
    { name: '_sip._tcp.a.nl', type: 'SRV', content: '60 5060 sip.a.nl', ttl: 3600, prio: 10 },
    { name: 'a.nl', type: 'CAA', content: '0 issue "sectigo.com; validationmethods=dns-01"', ttl: 3600 },
    { name: 'a.nl', type: 'TXT', content: 'say "hi" (and; more)', ttl: 3600 },
    { name: 'a.nl', type: 'MX', content: '.', ttl: 3600, prio: 0 },
    { name: 'a.nl', type: 'NAPTR', content: '100 10 "u" "E2U+sip" "!^.*$!sip:info@a.nl!" .', ttl: 3600 },
    {
      name: 'a.nl',
      type: 'DNSKEY',
      content: '257 3 13 RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPLGh1eikgv7PuE LQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==',
      ttl: 3600,
    },
  ] as ZoneRecordEntry[])('accepts %j', (record) => {
    expect(zoneRecordProblem(record)).toBeUndefined();
  });

  it('refuses the injections on every write path: zones, templates, dataset loads and DCV appends', async () => {
    await expect(putZone(zone('inject-a.nl', [newlineInjection]))).rejects.toThrow(
      /record 0 \(CNAME www\.safe\.nl\): content: must not hold control/,
    );
    await expect(putZone(zone('inject-b.nl', [directiveInjection]))).rejects.toThrow(/name: must be a DNS name/);
    await expect(
      putTemplate({
        customer: 'demo',
        name: 'evil-template',
        hostMaster: 'hostmaster@demo-hosting.example',
        refresh: 1,
        retry: 1,
        expire: 1,
        ttl: 1,
        records: [directiveInjection],
        createdDate: '2026-01-01T00:00:00Z',
      }),
    ).rejects.toThrow(/name: must be a DNS name/);
    expect(() => appendDcvRecordsItem('demo-shop.nl', 'demo', [newlineInjection], '2026-01-01T00:00:00Z')).toThrow(/control characters/);
    expect(() => parseDataset({ zones: [zone('inject-c.nl', [newlineInjection])] })).toThrow(
      'Invalid dataset: zones.0.records.0: content: must not hold control characters (CR, LF, TAB, ...)',
    );
    // Nothing of the refused zones was written.
    expect(await getZone('inject-a.nl')).toBeUndefined();
    expect(await getZone('inject-b.nl')).toBeUndefined();
  });
});

describe('the zone-file writer', () => {
  it('refuses a record with a newline instead of writing the NS line it carries', () => {
    expect(() => toZoneFile('safe.nl', view([{ ...newlineInjection }]))).toThrow(UnwritableRecord);
    expect(() =>
      toZoneFile('safe.nl', view([{ name: 'safe.nl', type: 'URL', content: 'https://a.example/\r\n$ORIGIN x.', ttl: 1 }])),
    ).toThrow(UnwritableRecord);
  });

  it('escapes a name starting with $ so that it is an owner name, not a directive', () => {
    const file = toZoneFile(
      'safe.nl',
      view([{ ...directiveInjection }, { name: 'www.safe.nl', type: 'A', content: '192.0.2.1', ttl: 60 }]),
    );
    expect(file.split('\n').filter((l) => l.startsWith('$'))).toEqual(['$ORIGIN safe.nl.', '$TTL 3600']);
    expect(file).toContain('\\$origin\\ evil.example.\t3600\tIN\tTXT\t"x"');
    // The record after it still belongs to the one origin.
    expect(parseZone(file).records.find((r) => r.type === 'A')).toMatchObject({ name: 'www.safe.nl', content: '192.0.2.1' });
  });

  it('escapes ( ) and ; outside quoted strings, so a record cannot swallow the lines after it', () => {
    const file = toZoneFile('safe.nl', view([{ name: 'safe.nl', type: 'CAA', content: '0 issue "a; b (c)" ( ;', ttl: 60 }]));
    expect(file).toContain('@\t60\tIN\tCAA\t0 issue "a; b (c)" \\( \\;');
  });

  it('answers a stored record with a newline as JSON, and refuses to render it as a zone file (500, logged), never the injected line', async () => {
    // As an item written before records were checked: the old layout, records inline.
    await putDomain(sampleDomain('legacy-inject.nl', 'demo', 'sidn'));
    const legacy = zone('legacy-inject.nl', [{ ...newlineInjection, name: 'www.legacy-inject.nl' }]);
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { ...legacy, ...keys.zone(legacy.domainName, 'demo'), entity: 'zone' } }),
    );
    const json = await call('GET', '/v2/domains/legacy-inject.nl/zone');
    expect(json.status).toBe(200);
    expect(json.body.records).toEqual([{ name: 'www.legacy-inject.nl', type: 'CNAME', content: newlineInjection.content, ttl: 3600 }]);
    const file = await call('GET', '/v2/domains/legacy-inject.nl/zone', { headers: { Accept: 'text/dns' } });
    expect(file.status).toBe(500);
    expect(file.body).toEqual({
      type: 'InternalError',
      message: 'An internal error occurred; it has been logged with the request id.',
      requestId: file.headers['x-request-id'],
    });
    expect(file.raw).not.toContain('evil');
  });
});

describe('zone.master (issue 18 item 9)', () => {
  const body = (master: string) => ({ ...demoBody, authcode: 'NL-TRANSFER-2026', zone: { master } });

  it.each([
    '169.254.169.254',
    '127.0.0.1',
    '10.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    'fe80::1',
    'fc00::1',
    '224.0.0.1',
    '0.0.0.0',
  ])('answers 400 for %s: not a public unicast address', async (master) => {
    const res = await transfer('transfer-now.nl', body(master), { quote: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'zone.master: must be a public unicast address (not loopback, private, link-local, multicast or reserved)',
      violations: [
        {
          field: 'zone.master',
          message: 'must be a public unicast address (not loopback, private, link-local, multicast or reserved)',
          value: master,
        },
      ],
      requestId: res.headers['x-request-id'],
    });
  });

  it.each(nonPublicHosts)('answers 400 for %s (%s) by the rule of every address a customer gives', async (host) => {
    const res = await transfer('transfer-now.nl', body(host.replace(/^\[|\]$/g, '')), { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([expect.objectContaining({ field: 'zone.master' })]);
  });

  it.each(['8.8.8.8', '2a00:1450:4001::1', '::ffff:8.8.8.8'])('accepts %s', async (master) => {
    const res = await transfer('transfer-now.nl', body(master), { quote: true });
    expect(res.status).toBe(200);
  });

  it('refuses a dataset whose zone names an internal hidden master', () => {
    expect(() => parseDataset({ zones: [{ ...zone('m.nl', []), master: '169.254.169.254' }] })).toThrow(
      'Invalid dataset: zones.0.master: must be a public unicast address (not loopback, private, link-local, multicast or reserved)',
    );
  });
});

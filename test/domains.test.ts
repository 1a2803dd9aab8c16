import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as listHandler } from '../functions/domains/handler.ts';
import { migrateTable } from '../infra/migrate.ts';
import { db } from '../shared/db/client.ts';
import { batchWriteAll, toItem } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { listDueDomains, putDomain } from '../shared/db/repositories/domains.ts';
import { listDueZones } from '../shared/db/repositories/zone-premium.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import type { DomainInput } from '../shared/model/domain.ts';
import { dueOf } from '../shared/model/domain-lifecycle.ts';
import { toWireTime } from '../shared/time.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { readsEntries, recordTableCalls } from './support/sdk-calls.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/** A domain of `customer` written straight to the table (a customer of its own keeps listings exact). */
function domainOf(customer: string, domainName: string, overrides: Partial<DomainInput> = {}): DomainInput {
  return {
    domainName,
    customer,
    registry: 'verisign',
    registrant: `${customer}-registrant`,
    contacts: [{ role: 'ADMIN', handle: `${customer}-admin` }],
    ns: ['ns1.example.net', 'ns2.example.net'],
    keyData: [],
    privacyProtect: false,
    autoRenew: true,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: '2025-01-01T00:00:00Z',
    updatedDate: '2025-01-01T00:00:00Z',
    expiryDate: '2027-01-01T00:00:00Z',
    ...overrides,
  };
}

const list = (customer: string, query: Record<string, string | string[]>) => {
  const multi = Object.fromEntries(Object.entries(query).map(([k, val]) => [k, Array.isArray(val) ? val : [val]]));
  const event = apiEvent({
    method: 'GET',
    path: '/v2/domains',
    resource: '/v2/domains',
    principal: { customer, user: 'lister', permissions: [] },
  });
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals[vals.length - 1] as string]));
  return invoke(listHandler, event);
};

/** The PHP SDK's DomainDetails::fromArray reads these without a default. */
const phpRequired = [
  'domainName',
  'registry',
  'customer',
  'registrant',
  'privacyProtect',
  'status',
  'autoRenew',
  'autoRenewPeriod',
  'createdDate',
  'expiryDate',
  'premium',
];

describe('GET /v2/domains/{domainName}', () => {
  it('answers a demo domain in the shape the SDKs read, statuses upper case', async () => {
    const res = await call('GET', '/v2/domains/demo-secure.com');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeDefined();
    for (const field of phpRequired) expect(res.body, field).toHaveProperty(field);
    expect(res.body).toMatchObject({
      domainName: 'demo-secure.com',
      registry: 'verisign',
      customer: 'demo',
      registrant: 'demo-registrant',
      privacyProtect: true,
      status: ['CLIENT_TRANSFER_PROHIBITED'],
      autoRenew: true,
      autoRenewPeriod: 12,
      premium: false,
      expiryDate: '2027-06-12T09:00:00Z',
    });
    expect(res.body.keyData).toHaveLength(1);
    expect(typeof res.body.privacyProtect).toBe('boolean');
    expect(Number.isInteger(res.body.autoRenewPeriod)).toBe(true);
  });

  it('shows the managed zone of demo-shop.nl', async () => {
    const res = await call('GET', '/v2/domains/demo-shop.nl');
    expect(res.status).toBe(200);
    expect(res.body.zone).toEqual({ id: 101, service: 'BASIC', template: 'demo-template', dnssec: false });
    expect(res.body.status).toEqual(['OK']);
  });

  it('answers only the fields asked for, repeated or comma-separated', async () => {
    const res = await call('GET', '/v2/domains/demo-secure.com?fields=domainName,expiryDate&fields=status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ domainName: 'demo-secure.com', expiryDate: '2027-06-12T09:00:00Z', status: ['CLIENT_TRANSFER_PROHIBITED'] });
    const bad = await call('GET', '/v2/domains/demo-secure.com?fields=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe('ConstraintViolationException');
  });

  it("answers another customer's domain exactly like a missing one, after the same one Query", async () => {
    const foreign = await recordTableCalls(() => call('GET', '/v2/domains/other-site.com'));
    const missing = await recordTableCalls(() => call('GET', '/v2/domains/never-registered.com'));
    expect(foreign.result.status).toBe(404);
    expect(missing.result.status).toBe(404);
    const strip = (body: Record<string, unknown>) => ({
      ...body,
      message: String(body.message).replace(/'[^']+'/, "'X'"),
      identifier: 'X',
      requestId: 'X',
    });
    expect(strip(foreign.result.body), JSON.stringify([foreign.result.body, missing.result.body])).toEqual(strip(missing.result.body));
    // One Query of the name's collection either way: nothing more is read before the owner is known.
    expect(foreign.details.map((d) => d.command)).toEqual(missing.details.map((d) => d.command));
    expect(foreign.details.map((d) => d.command)).toEqual(['QueryCommand']);
    const own = await call('GET', '/v2/domains/other-site.com', { key: otherKey });
    expect(own.status).toBe(200);
    expect(own.body.customer).toBe('other');
  });

  it('answers a bad domain name with 400 naming it', async () => {
    const res = await call('GET', '/v2/domains/not_a_domain');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
  });

  it('answers a domain whose transfer completed, in this shape', async () => {
    await sandboxDomain('arrives-now.com', { transfer: { stages: [], outcome: 'completed' } });
    const started = await transfer('arrives-now.com', { ...demoBody, authcode: 'TEST-CODE', ns: ['ns1.example.net', 'ns2.example.net'] });
    expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
    const res = await call('GET', '/v2/domains/arrives-now.com');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const field of phpRequired) expect(res.body, field).toHaveProperty(field);
    expect(res.body).toMatchObject({
      domainName: 'arrives-now.com',
      customer: 'demo',
      status: ['OK'],
      autoRenewPeriod: 12,
      premium: false,
    });
    const listed = await call('GET', '/v2/domains?status=OK&domainName=arrives-now.com');
    expect(listed.body.entities.map((d: { domainName: string }) => d.domainName)).toEqual(['arrives-now.com']);
  });
});

describe('npm run admin -- migrate, for domains', () => {
  it('rewrites domains of the earlier layout: statuses upper case, defaults, expiry and status listings; then finds nothing', async () => {
    const old = { ...domainOf('migrating', 'old-layout.com'), status: ['ok', 'clientTransferProhibited'] } as Record<string, unknown>;
    delete old.autoRenewPeriod;
    delete old.premium;
    const key = keys.domain('old-layout.com', 'migrating', '2027-01-01T00:00:00Z');
    await batchWriteAll([{ put: toItem({ pk: key.pk, sk: key.sk, gsi1pk: key.gsi1pk, gsi1sk: key.gsi1sk } as typeof key, 'domain', old) }]);
    expect((await list('migrating', { status: 'OK' })).body.entities).toEqual([]);
    const dry = await migrateTable({ dryRun: true });
    expect(dry.domainsOld).toBeGreaterThanOrEqual(1);
    const report = await migrateTable();
    expect(report.domainsMigrated).toBe(report.domainsOld);
    const byStatus = await list('migrating', { status: 'CLIENT_TRANSFER_PROHIBITED', fields: 'domainName,status,autoRenewPeriod,premium' });
    expect(byStatus.body.entities).toEqual([
      { domainName: 'old-layout.com', status: ['OK', 'CLIENT_TRANSFER_PROHIBITED'], autoRenewPeriod: 12, premium: false },
    ]);
    expect((await list('migrating', { 'expiryDate:lt': '2027-02-01', fields: 'domainName' })).body.entities).toEqual([
      { domainName: 'old-layout.com' },
    ]);
    // Its per-day expiry count too: a range's total counts it.
    expect(
      (await list('migrating', { 'expiryDate:gte': '2026-12-01', 'expiryDate:lt': '2027-02-01', limit: '0' })).body.pagination.total,
    ).toBe(1);
    expect((await migrateTable({ dryRun: true })).domainsOld).toBe(0);
  });

  it("gives domains stored before the expiry job's listing their due entry, once", async () => {
    const stored = domainOf('migrating', 'never-due.com', { expiryDate: '2026-12-01T00:00:00Z' });
    await putDomain(stored, true);
    // As stored before the listing existed: the domain without its due entry.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.domainDueByName('never-due.com') }));
    const dueAt = dueOf(stored);
    const listedDue = async () => (await listDueDomains(dueAt, 1000)).due.filter((d) => d.domainName === 'never-due.com');
    expect(await listedDue()).toEqual([]);
    const dry = await migrateTable({ dryRun: true });
    expect(dry.domainsUndue).toBeGreaterThanOrEqual(1);
    expect(dry.domainsDueListed).toBe(0);
    expect(await listedDue()).toEqual([]);
    const report = await migrateTable();
    expect(report.domainsDueListed).toBe(report.domainsUndue);
    expect(await listedDue()).toEqual([{ domainName: 'never-due.com', dueDate: dueAt }]);
    // Idempotent: nothing left to list, and a second run writes nothing.
    expect((await migrateTable({ dryRun: true })).domainsUndue).toBe(0);
    expect((await migrateTable()).domainsDueListed).toBe(0);
    expect(await listedDue()).toHaveLength(1);
  });

  it('gives PREMIUM zones stored before their later years were charged a paid-until time (the next anniversary) and a due entry, once', async () => {
    const zone = (domainName: string, id: number, createdDate: string, paidUntil?: string) => ({
      id,
      domainName,
      customer: 'demo',
      managed: false,
      service: 'PREMIUM' as const,
      dnssec: false,
      hostMaster: `hostmaster@${domainName}`,
      refresh: 10800,
      retry: 3600,
      expire: 1209600,
      ttl: 3600,
      records: [],
      createdDate,
      ...(paidUntil ? { paidUntil } : {}),
    });
    // One stored before paid-until times, one whose due entry is missing.
    await putZone(zone('unpaid-years.nl', 8801, '2023-02-14T10:00:00Z'));
    await putZone(zone('unlisted-year.nl', 8802, '2024-05-01T00:00:00Z', '2027-05-01T00:00:00Z'));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.zoneDueByName('unlisted-year.nl') }));
    const listed = async () =>
      (await listDueZones('2100-01-01T00:00:00Z', 1000)).due.filter((d) => ['unpaid-years.nl', 'unlisted-year.nl'].includes(d.domainName));
    expect(await listed()).toEqual([]);
    const dry = await migrateTable({ dryRun: true });
    expect(dry).toMatchObject({ zonesPremiumUndue: 2, zonesPremiumDueListed: 0 });
    expect(await migrateTable()).toMatchObject({ zonesPremiumUndue: 2, zonesPremiumDueListed: 2 });
    // The first anniversary of its creation still ahead: the years before were never billed, and are not now.
    const anniversary = new Date('2023-02-14T10:00:00Z');
    while (anniversary.getTime() <= Date.now()) anniversary.setUTCFullYear(anniversary.getUTCFullYear() + 1);
    const until = toWireTime(anniversary);
    expect((await getZoneHead('unpaid-years.nl', true))?.zone.paidUntil).toBe(until);
    expect(await listed()).toEqual(
      expect.arrayContaining([
        { domainName: 'unpaid-years.nl', dueDate: until },
        { domainName: 'unlisted-year.nl', dueDate: '2027-05-01T00:00:00Z' },
      ]),
    );
    expect(await migrateTable()).toMatchObject({ zonesPremiumUndue: 0, zonesPremiumDueListed: 0 });
  });

  it('rebuilds the per-day expiry counts of domains written before them', async () => {
    const d = domainOf('uncounted', 'uncounted.com', { expiryDate: '2029-09-09T09:00:00Z' });
    const key = keys.domain(d.domainName, d.customer, d.expiryDate);
    await batchWriteAll([{ put: toItem(key, 'domain', d) }]);
    const range = { 'expiryDate:gte': '2029-09-01', 'expiryDate:lt': '2029-10-01', limit: '0' };
    expect((await list('uncounted', range)).body.pagination.total).toBe(0);
    expect((await migrateTable({ dryRun: true })).domainExpiryDaysRepaired).toBeGreaterThanOrEqual(1);
    await migrateTable();
    expect((await list('uncounted', range)).body.pagination.total).toBe(1);
    expect((await migrateTable({ dryRun: true })).domainExpiryDaysRepaired).toBe(0);
  });
});

describe('GET /v2/domains', () => {
  const c = 'lister-a';
  const names = Array.from({ length: 30 }, (_, i) => `name-${String(i).padStart(2, '0')}.com`);
  const seed = async () => {
    await Promise.all(
      names.map((name, i) =>
        putDomain(
          domainOf(c, name, {
            expiryDate: `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + i).padStart(2, '0')}T10:00:00Z`,
            status: i % 5 === 0 ? ['OK', 'CLIENT_TRANSFER_PROHIBITED'] : ['OK'],
            autoRenew: i % 2 === 0,
            autoRenewPeriod: i % 3 === 0 ? 24 : 12,
            privacyProtect: i % 4 === 0,
          }),
          true,
        ),
      ),
    );
  };

  it('lists by name with pagination and total, in the SDKs Page shape', async () => {
    await seed();
    const res = await list(c, { limit: '5', offset: '10' });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ limit: 5, offset: 10, total: 30 });
    expect(res.body.entities.map((d: { domainName: string }) => d.domainName)).toEqual(names.slice(10, 15));
    const desc = await list(c, { order: '-domainName', limit: '2', total: 'false' });
    expect(desc.body.entities.map((d: { domainName: string }) => d.domainName)).toEqual([names[29], names[28]]);
    expect(desc.body.pagination).toEqual({ limit: 2, offset: 0 });
  });

  it("never lists another customer's domains", async () => {
    const res = await call('GET', '/v2/domains?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.entities.every((d: { customer: string }) => d.customer === 'demo')).toBe(true);
    expect(res.body.entities.map((d: { domainName: string }) => d.domainName)).toContain('demo-shop.nl');
    expect(res.body.entities.map((d: { domainName: string }) => d.domainName)).not.toContain('other-site.com');
  });

  it('answers an expiryDate range from the expiry index, soonest first, reading only the page', async () => {
    const expected = names
      .map((name, i) => ({ name, expiry: `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + i).padStart(2, '0')}T10:00:00Z` }))
      .filter((d) => d.expiry >= '2027-03-01' && d.expiry < '2027-06-01')
      .sort((a, b) => a.expiry.localeCompare(b.expiry));
    const res = await recordTableCalls(() => list(c, { 'expiryDate:gte': '2027-03-01', 'expiryDate:lt': '2027-06-01', limit: '3' }));
    expect(res.result.status).toBe(200);
    expect(res.result.body.entities.map((d: { domainName: string }) => d.domainName)).toEqual(expected.slice(0, 3).map((d) => d.name));
    expect(res.result.body.pagination.total).toBe(expected.length);
    // The page's domains, and for the total the range's per-day counts (no domain read for it).
    const whole = res.details.filter((d) => d.input.IndexName === 'gsi2').reduce((n, d) => n + d.itemsRead, 0);
    expect(whole).toBe(3);
    expect(res.details.filter(readsEntries)).toEqual([]);
    // gt and lte at the precision of the value, a day or a second.
    const day = expected[0]?.expiry.slice(0, 10) as string;
    const onDay = await list(c, { expiryDate: day, fields: 'domainName' });
    expect(onDay.body.entities).toEqual([{ domainName: expected[0]?.name }]);
    const after = await list(c, { 'expiryDate:gt': day, 'expiryDate:lte': expected[1]?.expiry as string, fields: 'domainName' });
    expect(after.body.entities).toEqual([{ domainName: expected[1]?.name }]);
    const latest = await list(c, { order: '-expiryDate', limit: '1', fields: 'domainName,expiryDate' });
    expect(latest.body.entities[0].expiryDate).toBe('2027-12-24T10:00:00Z');
  });

  it('answers an exact status from the status listing, by name, reading only the page', async () => {
    const locked = names.filter((_, i) => i % 5 === 0);
    const res = await recordTableCalls(() => list(c, { status: 'CLIENT_TRANSFER_PROHIBITED', limit: '2', offset: '1' }));
    expect(res.result.body.entities.map((d: { domainName: string }) => d.domainName)).toEqual(locked.slice(1, 3));
    expect(res.result.body.pagination.total).toBe(locked.length);
    const whole = res.details.filter((d) => d.command === 'BatchGetItemCommand').reduce((n, d) => n + d.itemsRead, 0);
    expect(whole).toBe(2);
    const notLocked = await list(c, { 'status:ne': 'CLIENT_TRANSFER_PROHIBITED', total: 'true', limit: '0' });
    expect(notLocked.body.pagination.total).toBe(30 - locked.length);
  });

  it('filters on autoRenew, autoRenewPeriod, privacyProtect, registrant, admin, domainName like and q', async () => {
    const audit = await list(c, { export: 'true', autoRenew: 'true', 'autoRenewPeriod:gte': '12', fields: 'domainName' });
    expect(audit.status).toBe(200);
    expect(audit.body.entities).toHaveLength(15);
    const longer = await list(c, { 'autoRenewPeriod:gt': '12', limit: '100', fields: 'domainName' });
    expect(longer.body.pagination.total).toBe(10);
    expect((await list(c, { privacyProtect: 'true', limit: '0' })).body.pagination.total).toBe(8);
    expect((await list(c, { registrant: `${c}-registrant`, limit: '0' })).body.pagination.total).toBe(30);
    expect((await list(c, { admin: 'someone-else', limit: '0' })).body.pagination.total).toBe(0);
    expect((await list(c, { 'domainName:like': 'name-1*', limit: '0' })).body.pagination.total).toBe(10);
    expect((await list(c, { q: 'E-2', limit: '0' })).body.pagination.total).toBe(10);
  });

  it('totals an expiryDate range from the per-day counts: exact at any precision, with no index entries for whole days', async () => {
    const expiries = names.map((_, i) => `2027-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + i).padStart(2, '0')}T10:00:00Z`);
    const cases: Record<string, string>[] = [
      { 'expiryDate:lt': '2028-01-01' },
      { 'expiryDate:gte': '2027-03-01', 'expiryDate:lt': '2027-06-01' },
      // Part of a day at each end: the day's own keys counted, the days between from their counts.
      { 'expiryDate:gte': '2027-03-04T09:00:00Z', 'expiryDate:lte': '2027-10-10T10:00:00Z' },
      { 'expiryDate:gt': '2027-03-04T10:00:00Z', 'expiryDate:lt': '2027-10-10T10:00:01Z' },
      { 'expiryDate:gt': '2027-03-04', 'expiryDate:lte': '2027-10-10' },
      { expiryDate: '2027-05-05' },
      { 'expiryDate:gte': '2027-05-05T09:00:00Z', 'expiryDate:lt': '2027-05-05T11:00:00Z' },
      { 'expiryDate:gte': '2027-05-05T11:00:00Z', 'expiryDate:lt': '2027-05-05T09:00:00Z' },
      { 'expiryDate:gte': '2027-02-30', 'expiryDate:lt': '2027-04-31' },
      { order: 'expiryDate' },
    ];
    const matches = (q: Record<string, string>, e: string) =>
      (q['expiryDate:lt'] === undefined || e < q['expiryDate:lt']) &&
      (q['expiryDate:gte'] === undefined || e >= q['expiryDate:gte']) &&
      (q['expiryDate:gt'] === undefined ||
        (q['expiryDate:gt'].length === 10 ? e.slice(0, 10) > q['expiryDate:gt'] : e > q['expiryDate:gt'])) &&
      (q['expiryDate:lte'] === undefined ||
        (q['expiryDate:lte'].length === 10 ? e.slice(0, 10) <= q['expiryDate:lte'] : e <= q['expiryDate:lte'])) &&
      (q.expiryDate === undefined || e.slice(0, 10) === q.expiryDate);
    for (const q of cases) {
      const res = await list(c, { ...q, limit: '1' });
      expect(res.status, JSON.stringify(q)).toBe(200);
      expect(res.body.pagination.total, JSON.stringify(q)).toBe(expiries.filter((e) => matches(q, e)).length);
    }
    // A year of whole days: the counters only (one Query), however few keys a request may count.
    process.env.DOMAIN_LIST_MAX_READ = '5';
    try {
      const counted = await recordTableCalls(() => list(c, { 'expiryDate:gte': '2027-01-01', 'expiryDate:lt': '2028-01-01', limit: '0' }));
      expect(counted.result.status).toBe(200);
      expect(counted.result.body.pagination.total).toBe(30);
      expect(counted.details.filter(readsEntries)).toEqual([]);
      expect(counted.details.map((d) => d.command)).toEqual(['QueryCommand']);
    } finally {
      delete process.env.DOMAIN_LIST_MAX_READ;
    }
  });

  it('counts a range with filters no index answers by reading, at most DOMAIN_LIST_MAX_READ, then answers a 400 saying how to narrow it', async () => {
    process.env.DOMAIN_LIST_MAX_READ = '5';
    try {
      const counted = await list(c, { 'expiryDate:lt': '2028-01-01', autoRenew: 'true', limit: '1' });
      expect(counted.status).toBe(400);
      expect(counted.body.type).toBe('ValidationError');
      expect(counted.body.message).toContain('Narrow it with an expiryDate range or an exact status');
      const page = await list(c, { 'expiryDate:lt': '2028-01-01', limit: '1', total: 'false', fields: 'domainName' });
      expect(page.status).toBe(200);
      expect(page.body.entities).toHaveLength(1);
    } finally {
      delete process.env.DOMAIN_LIST_MAX_READ;
    }
  });

  it('exports every domain with the fields WHMCS asks for (expiry sync)', async () => {
    const res = await list(c, { export: 'true', fields: 'domainName,expiryDate' });
    expect(res.status).toBe(200);
    expect(res.body.entities).toHaveLength(30);
    expect(Object.keys(res.body.entities[0]).sort()).toEqual(['domainName', 'expiryDate']);
    const ids = await list(c, { export: 'true' });
    expect(ids.body.entities[0]).toEqual({ domainName: names[0] });
  });

  it('refuses unknown filters, matchers, values and orders with 400 naming the parameter', async () => {
    const queries: Record<string, string>[] = [
      { nope: 'x' },
      { 'status:like': 'OK' },
      { status: 'ok' },
      { 'expiryDate:lt': 'soon' },
      { 'autoRenewPeriod:gt': 'a year' },
      { order: 'registrant' },
      { autoRenew: 'yes' },
    ];
    for (const query of queries) {
      const res = await list(c, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.type).toBe('ConstraintViolationException');
    }
  });

  it('counts only, with limit=0', async () => {
    const res = await call('GET', '/v2/domains?limit=0');
    expect(res.status).toBe(200);
    const all = await call('GET', '/v2/domains?limit=100');
    expect(res.body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: all.body.entities.length } });
  });
});

describe('the status listing and the kept counts follow every write', () => {
  it('moves the per-day expiry counts with a renewal, and not with an update', async () => {
    await putDomain(domainOf('demo', 'renewing-days.com', { expiryDate: '2031-05-05T10:00:00Z' }));
    const onDay = async (day: string) => (await call('GET', `/v2/domains?expiryDate=${day}&limit=0`)).body.pagination.total as number;
    const [before, later] = [await onDay('2031-05-05'), await onDay('2032-05-05')];
    expect(before).toBeGreaterThanOrEqual(1);
    expect((await call('POST', '/v2/domains/renewing-days.com/update', { body: { autoRenew: false } })).status).toBe(200);
    expect(await onDay('2031-05-05')).toBe(before);
    const renewed = await call('POST', '/v2/domains/renewing-days.com/renew', { body: { period: 12 } });
    expect(renewed.status, renewed.raw).toBe(200);
    expect(renewed.body.expiryDate).toBe('2032-05-05T10:00:00Z');
    expect([await onDay('2031-05-05'), await onDay('2032-05-05')]).toEqual([before - 1, later + 1]);
  });

  it('moves a domain between status listings and counts when its statuses change, by update', async () => {
    await putDomain(domainOf('demo', 'moving.com'));
    const count = async (query: Record<string, string>) =>
      (await call('GET', `/v2/domains?${new URLSearchParams({ ...query, limit: '0' })}`)).body.pagination.total;
    const [all, ok, locked] = [await count({}), await count({ status: 'OK' }), await count({ status: 'CLIENT_TRANSFER_PROHIBITED' })];
    const res = await call('POST', '/v2/domains/moving.com/update', { body: { status: ['CLIENT_TRANSFER_PROHIBITED'] } });
    expect(res.status).toBe(200);
    expect([await count({}), await count({ status: 'OK' }), await count({ status: 'CLIENT_TRANSFER_PROHIBITED' })]).toEqual([
      all,
      ok - 1,
      locked + 1,
    ]);
    const listed = await call('GET', '/v2/domains?status=CLIENT_TRANSFER_PROHIBITED&limit=100&fields=domainName');
    expect(listed.body.entities).toContainEqual({ domainName: 'moving.com' });
    const notOk = await call('GET', '/v2/domains?status=OK&limit=100&fields=domainName');
    expect(notOk.body.entities).not.toContainEqual({ domainName: 'moving.com' });
  });
});

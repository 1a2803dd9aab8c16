import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runJob } from '../infra/local/jobs.ts';
import { db } from '../shared/db/client.ts';
import { getDomain } from '../shared/db/repositories/domains.ts';
import { getRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { listDueZones, putZoneDue } from '../shared/db/repositories/zone-premium.ts';
import { soaSerial } from '../shared/dns/zone.ts';
import type { ExpiryRun } from '../shared/domains/expiry.ts';
import type { ZoneHeader } from '../shared/model/zone.ts';
import { toWireTime } from '../shared/time.ts';
import { call } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';
import { processesOf } from './support/transfer.ts';

/**
 * The expiry job (docs/domains.md, "Life cycle"), as an operator sees it: domains whose expiry is
 * past or near are loaded with `npm run admin -- load` (the CLI, a process of its own, on this
 * file's table), then the job runs as EventBridge invokes it (infra/local/jobs.ts, the deployed
 * timeout), at the times the test names. It renews what auto-renews (charged once), sends the
 * notices, and moves the rest through expiry and redemption until the name is free.
 */

const run = promisify(execFile);
const day = 86_400_000;
const now = Date.now();
const at = (offsetDays: number) => new Date(now + offsetDays * day);
const wire = (offsetDays: number) => toWireTime(at(offsetDays));

async function load(dataset: unknown): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'expiry-')), 'data.json');
  writeFileSync(file, JSON.stringify(dataset));
  const { stdout } = await run('npx', ['tsx', 'infra/admin.ts', 'load', file], { env: process.env });
  expect(stdout).toMatch(/written/);
}

function domain(domainName: string, customer: string, expiryDays: number, autoRenew: boolean) {
  return {
    domainName,
    customer,
    registry: 'verisign',
    registrant: customer === 'demo' ? 'demo-registrant' : 'quiet-registrant',
    contacts: [],
    ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
    keyData: [],
    privacyProtect: false,
    autoRenew,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: '2024-01-01T00:00:00Z',
    updatedDate: '2024-01-01T00:00:00Z',
    expiryDate: wire(expiryDays),
  };
}

async function job(offsetDays: number, timeoutMs?: number): Promise<ExpiryRun> {
  const outcome = await runJob('domain-expiry', { time: at(offsetDays), ...(timeoutMs ? { timeoutMs } : {}) });
  if (!('result' in outcome)) throw new Error('the job timed out');
  return outcome.result as ExpiryRun;
}

const processesFor = async (customer: string, name: string) => (await processesOf(customer)).filter((p) => p.identifier === name);
const notificationsFor = async (customer: string, name: string) => {
  const res = await call('GET', `/v2/customers/${customer}/notifications?limit=100`, customer === 'demo' ? {} : { key: 'quiet-key' });
  return (res.body.entities as { domainName?: string; eventType: string; statusDetail?: string; message: string }[]).filter(
    (n) => n.domainName === name,
  );
};

describe('the expiry job', () => {
  it('renews an auto-renewing domain once at expiry, charged and notified; a second run does nothing', async () => {
    await load({ domains: [domain('expiry-auto.com', 'demo', -0.01, true)] });
    const first = await job(0);
    expect(first).toMatchObject({ renewed: 1, failed: 0 });
    const renewed = await getDomain('expiry-auto.com');
    expect(renewed?.expiryDate).toBe(
      toWireTime(new Date(Date.parse(wire(-0.01))).setUTCFullYear(new Date(wire(-0.01)).getUTCFullYear() + 1)),
    );
    expect(renewed?.status).toEqual(['OK']);
    const processes = await processesFor('demo', 'expiry-auto.com');
    expect(processes.map((p) => [p.action, p.billables.map((b) => `${b.action} ${b.total} ${p.currency}`)])).toEqual([
      ['renew', ['RENEW 1049 EUR']],
    ]);
    expect((await notificationsFor('demo', 'expiry-auto.com')).map((n) => n.eventType)).toEqual(['RenewDomainEvent']);
    expect((await job(0)).renewed).toBe(0);
    expect(await processesFor('demo', 'expiry-auto.com')).toHaveLength(1);
  });

  it("auto-renews a premium domain at its registry's premium renewal price, as the customer's standing consent", async () => {
    const name = 'expiry-premium.com';
    await load({
      domains: [{ ...domain(name, 'demo', -0.01, true), premium: true }],
      registryDomains: [
        {
          domainName: name,
          registry: 'verisign',
          statuses: ['ok'],
          expiryDate: wire(-0.01),
          ns: [],
          keyData: [],
          premium: { currency: 'EUR', amount: 90000 },
          renewPremium: 90000,
          transfer: { stages: [], outcome: 'completed' },
        },
      ],
    });
    expect(await job(0)).toMatchObject({ renewed: 1, failed: 0 });
    const processes = await processesFor('demo', name);
    expect(processes.map((p) => [p.action, p.billables.map((b) => `${b.product} ${b.action} ${b.total} ${p.currency}`)])).toEqual([
      ['renew', ['domain_com_premium RENEW 90000 EUR']],
    ]);
    expect((await getRegistryDomain(name))?.expiryDate).toBe((await getDomain(name))?.expiryDate);
    expect((await job(0)).renewed).toBe(0);
  });

  it('sends the expiry notices of the customer setting before expiry, each once, then expires, redeems and frees a domain not renewed', async () => {
    await load({ domains: [domain('expiry-off.com', 'demo', 20, false)] });
    // The per-day expiry counts: the load counts it on its expiry day, the purge takes it away.
    const expiresOn = (await getDomain('expiry-off.com'))?.expiryDate.slice(0, 10) as string;
    const onDay = async () => (await call('GET', `/v2/domains?expiryDate=${expiresOn}&limit=0`)).body.pagination.total as number;
    const counted = await onDay();
    expect(counted).toBeGreaterThanOrEqual(1);
    await job(0);
    await job(0);
    let notes = await notificationsFor('demo', 'expiry-off.com');
    expect(notes.map((n) => [n.eventType, n.statusDetail])).toEqual([['DomainExpiryReportEvent', 'EXPIRY_NOTICE']]);
    expect(notes[0]?.message).toContain('expires in 20 days');
    await job(14);
    await job(15);
    notes = await notificationsFor('demo', 'expiry-off.com');
    expect(notes).toHaveLength(2);
    expect(notes.map((n) => n.message).join(' ')).toContain('expires in 6 days');

    await job(20.1);
    expect((await getDomain('expiry-off.com'))?.status).toEqual(['EXPIRED']);
    expect((await call('GET', '/v2/domains/expiry-off.com')).body.status).toEqual(['EXPIRED']);
    // Verisign keeps an expired name 45 days (autoRenewGracePeriod), then deletes it into redemption (30 days).
    await job(40);
    expect((await getDomain('expiry-off.com'))?.status).toEqual(['EXPIRED']);
    await job(66);
    const redeemed = await getDomain('expiry-off.com');
    expect(redeemed?.status).toEqual(['REDEMPTION_PERIOD']);
    expect((await getRegistryDomain('expiry-off.com'))?.statuses).toEqual(['redemptionPeriod']);
    await job(100);
    expect(await getDomain('expiry-off.com')).toBeUndefined();
    expect((await call('GET', '/v2/domains/expiry-off.com')).status).toBe(404);
    expect(await onDay()).toBe(counted - 1);
    const counts = await call('GET', '/v2/domains?status=REDEMPTION_PERIOD&limit=0');
    expect(counts.body.pagination.total).toBe(0);
    notes = await notificationsFor('demo', 'expiry-off.com');
    expect(notes.map((n) => n.statusDetail).reverse()).toEqual([
      'EXPIRY_NOTICE',
      'EXPIRY_NOTICE',
      'EXPIRED',
      'REDEMPTION_PERIOD',
      'DELETED',
    ]);
    expect((await processesFor('demo', 'expiry-off.com')).flatMap((p) => p.billables)).toEqual([]);
  });

  it("follows the customer's own notice days (none here) and reads only the domains that are due, by the expiry index", async () => {
    await load({
      customers: [
        {
          handle: 'quiet',
          name: 'Quiet Hosting',
          currency: 'EUR',
          privacyProtect: false,
          expiryNoticeDays: [],
          createdDate: '2025-01-01T00:00:00Z',
        },
      ],
      apiKeys: [{ key: 'quiet-key', customer: 'quiet', user: 'ops', permissions: [] }],
      contacts: [
        {
          customer: 'quiet',
          handle: 'quiet-registrant',
          name: 'Q. Uiet',
          addressLine: ['Dam 2'],
          postalCode: '1012 JS',
          city: 'Amsterdam',
          country: 'NL',
          email: 'q@quiet.example',
          voice: '+31.201234572',
          createdDate: '2025-01-01T00:00:00Z',
        },
      ],
      domains: [domain('expiry-quiet.com', 'quiet', 5, false), domain('expiry-far.com', 'quiet', 400, false)],
    });
    const { result, details } = await recordTableCalls(() => job(0));
    expect(result.failed).toBe(0);
    expect(details.filter((d) => d.command.startsWith('Scan'))).toEqual([]);
    const queries = details.filter((d) => d.command.startsWith('Query') && d.input.IndexName === 'gsi1');
    expect(queries.length).toBeGreaterThan(0);
    // The domains' due listing, then the PREMIUM zones' (the zones' years: the describe below).
    for (const q of queries) expect(JSON.stringify(q.input)).toMatch(/"(DOMAINSDUE|ZONESDUE)"/);
    const read = details.filter((d) => d.command.startsWith('Get') && JSON.stringify(d.input).includes('DOMAIN#expiry-far.com'));
    expect(read).toEqual([]);
    expect(await notificationsFor('quiet', 'expiry-quiet.com')).toEqual([]);
    await job(5.1);
    expect((await getDomain('expiry-quiet.com'))?.status).toEqual(['EXPIRED']);
  });

  it('resumes after a run that died mid-renewal without renewing or charging twice', { timeout: 60_000 }, async () => {
    await load({ domains: [domain('expiry-crash.com', 'demo', -0.01, true)] });
    const name = 'expiry-crash.com';
    const before = await getDomain(name);
    // The first run dies at its recording transaction, after the registry renewed (Lambda's timeout).
    const id = `die-${crypto.randomUUID()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (String(context.commandName).startsWith('TransactWrite') && JSON.stringify(args.input).includes(`DOMAIN#${name}`)) {
          return new Promise<never>(() => undefined);
        }
        return next(args);
      },
      { step: 'initialize', name: id },
    );
    let died: Awaited<ReturnType<typeof runJob>>;
    try {
      died = await runJob('domain-expiry', { time: at(0), timeoutMs: 3_000 });
    } finally {
      db().middlewareStack.remove(id);
    }
    expect('timedOut' in died).toBe(true);
    const renewedUpstream = (await getRegistryDomain(name))?.expiryDate;
    expect(renewedUpstream).not.toBe(before?.expiryDate);
    expect((await getDomain(name))?.expiryDate).toBe(before?.expiryDate);
    const resumed = await job(0);
    expect(resumed.renewed).toBe(1);
    expect((await getDomain(name))?.expiryDate).toBe(renewedUpstream);
    expect((await getRegistryDomain(name))?.expiryDate).toBe(renewedUpstream);
    const charges = (await processesFor('demo', name)).flatMap((p) => p.billables.map((b) => b.action));
    expect(charges).toEqual(['RENEW']);
  });
});

function premiumZone(id: number, domainName: string, customer: string, paidUntilDays: number, createdDays = -365) {
  return {
    id,
    domainName,
    customer,
    managed: false,
    service: 'PREMIUM',
    dnssec: false,
    hostMaster: `hostmaster@${domainName}`,
    refresh: 10800,
    retry: 3600,
    expire: 1209600,
    ttl: 3600,
    records: [{ name: domainName, type: 'A', content: '192.0.2.60', ttl: 60 }],
    createdDate: wire(createdDays),
    paidUntil: wire(paidUntilDays),
  };
}

describe("the expiry job charges the later years of PREMIUM zones (docs/zones-api.md, 'Later years')", () => {
  const zoneProcesses = async (customer: string, name: string) =>
    (await processesFor(customer, name)).map((p) => [
      p.type,
      p.action,
      p.status,
      p.billables.map((b) => `${b.product} ${b.action} ${b.quantity} ${b.total} ${p.currency}`),
    ]);
  const zoneNotes = async (key: string, name: string) => {
    const res = await call('GET', `/v2/customers/${key.split('-')[0]}/notifications?limit=100`, { key });
    return (res.body.entities as { domainName?: string; eventType: string; subjectStatus?: string; payload?: { paidUntil?: string } }[])
      .filter((n) => n.domainName === name)
      .map((n) => [n.eventType, n.subjectStatus, n.payload?.paidUntil]);
  };

  it('charges each due year once (RENEW, else CREATE), reading only the due zones; a customer without a price gets a BASIC zone, notified', async () => {
    await load({
      customers: [{ handle: 'plain', name: 'Plain Hosting', currency: 'EUR', privacyProtect: false, createdDate: '2025-01-01T00:00:00Z' }],
      apiKeys: [{ key: 'plain-key', customer: 'plain', user: 'ops', permissions: [] }],
      prices: [
        { customer: 'demo', product: 'dns_premium', action: 'RENEW', currency: 'EUR', price: 250, fromDate: '2026-01-01T00:00:00Z' },
      ],
      zones: [
        premiumZone(9001, 'year-renew.nl', 'demo', -0.01),
        premiumZone(9002, 'year-create.nl', 'other', -2),
        premiumZone(9003, 'year-unpaid.nl', 'plain', -0.5),
        premiumZone(9004, 'year-far.nl', 'demo', 200),
        { ...premiumZone(9005, 'year-stale.nl', 'demo', 0), service: 'BASIC', paidUntil: undefined },
      ],
    });
    // A due entry its zone no longer explains (the zone made BASIC since): removed by the run, nothing charged.
    await putZoneDue({ domainName: 'year-stale.nl', service: 'PREMIUM', paidUntil: wire(-1) });
    const { getZoneHead } = await import('../shared/db/repositories/zones.ts');
    const paid = async (name: string) => (await getZoneHead(name, true))?.zone;
    const before = await paid('year-renew.nl');

    // Two runs at once, then a third: each year is charged exactly once.
    const { result: runs, details } = await recordTableCalls(() => Promise.all([job(0), job(0)]));
    expect(runs.map((r) => r.zones.failed)).toEqual([0, 0]);
    expect(runs.reduce((n, r) => n + r.zones.charged, 0)).toBe(2);
    expect(runs.reduce((n, r) => n + r.zones.ended, 0)).toBe(1);
    expect((await job(0)).zones).toMatchObject({ charged: 0, ended: 0, failed: 0 });
    // Only the due zones are read: by the listing of zones due, never a scan, never the zone paid further.
    expect(details.filter((d) => d.command.startsWith('Scan'))).toEqual([]);
    expect(details.filter((d) => JSON.stringify(d.input).includes('DOMAIN#year-far.nl'))).toEqual([]);

    // RENEW at the caller's price, the paid year moved on a year from where it ended (no gap, no free time).
    const renewed = await paid('year-renew.nl');
    expect(renewed?.service).toBe('PREMIUM');
    expect(renewed?.paidUntil).toBe(
      toWireTime(new Date(before?.paidUntil as string).setUTCFullYear(new Date(wire(-0.01)).getUTCFullYear() + 1)),
    );
    expect(await zoneProcesses('demo', 'year-renew.nl')).toEqual([['dnsZone', 'renew', 'COMPLETED', ['dns_premium RENEW 1 250 EUR']]]);
    expect(await zoneNotes('demo-key', 'year-renew.nl')).toEqual([['DnsZonePremiumRenewedEvent', 'OK', renewed?.paidUntil]]);
    // A list without RENEW charges the product's CREATE price (per 12 months), in its currency.
    expect(await zoneProcesses('other', 'year-create.nl')).toEqual([['dnsZone', 'renew', 'COMPLETED', ['dns_premium CREATE 1 350 USD']]]);
    expect((await paid('year-create.nl'))?.paidUntil).not.toBe(wire(-2));

    // No price: BASIC from now on (never PREMIUM for free), its records kept, a process without charge and a notification.
    const unpaid = await paid('year-unpaid.nl');
    expect(unpaid?.service).toBe('BASIC');
    // Served on BASIC's name servers now: a change on DNS, so its SOA serial went up.
    expect(soaSerial(unpaid as ZoneHeader)).toBeGreaterThan(Date.parse(wire(-365)) / 1000);
    expect(unpaid?.paidUntil).toBeUndefined();
    expect(await zoneProcesses('plain', 'year-unpaid.nl')).toEqual([['dnsZone', 'update', 'COMPLETED', []]]);
    expect(await zoneNotes('plain-key', 'year-unpaid.nl')).toEqual([['DnsZonePremiumEndedEvent', 'FAILED', wire(-0.5)]]);
    const zone = await call('GET', `/v2/dns/zones?name=year-unpaid.nl`, { key: 'plain-key' });
    expect(zone.body.entities[0]).toMatchObject({ name: 'year-unpaid.nl', service: 'BASIC' });
    expect((await call('GET', `/v2/dns/zones/${zone.body.entities[0].id}`, { key: 'plain-key' })).body.records).toHaveLength(1);

    expect(await processesFor('demo', 'year-stale.nl')).toEqual([]);
    const due = await listDueZones(wire(400), 1000);
    expect(due.due.map((d) => d.domainName)).not.toContain('year-stale.nl');
    expect(due.due.map((d) => d.domainName)).not.toContain('year-unpaid.nl');
    // The next year is due a year on, and charged then, once.
    const nextYear = await job(367);
    expect(nextYear.zones.failed).toBe(0);
    expect((await zoneProcesses('demo', 'year-renew.nl')).map((p) => p[1])).toEqual(['renew', 'renew']);
    expect((await job(367)).zones.charged).toBe(0);
  });

  it("charges a year once when a run's charge committed but its answer was lost, and when a run died before it", async () => {
    await load({ zones: [premiumZone(9011, 'year-lost.nl', 'demo', -0.01), premiumZone(9012, 'year-died.nl', 'demo', -0.01)] });
    const id = `lose-${crypto.randomUUID()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input);
        if (!String(context.commandName).startsWith('TransactWrite') || !input.includes('ZONECHARGE#')) return next(args);
        // year-lost.nl: committed, then the answer is lost; year-died.nl: the run stops before it is sent.
        if (input.includes('year-died.nl')) throw new Error('the run died');
        await next(args);
        throw new Error('the answer was lost');
      },
      { step: 'initialize', name: id },
    );
    let first: ExpiryRun;
    try {
      first = await job(0);
    } finally {
      db().middlewareStack.remove(id);
    }
    expect(first.zones).toMatchObject({ charged: 0, failed: 2 });
    const second = await job(0);
    expect(second.zones).toMatchObject({ charged: 1, failed: 0 });
    expect((await job(0)).zones.charged).toBe(0);
    for (const name of ['year-lost.nl', 'year-died.nl']) {
      expect((await processesFor('demo', name)).flatMap((p) => p.billables.map((b) => b.product))).toEqual(['dns_premium']);
    }
  });
});

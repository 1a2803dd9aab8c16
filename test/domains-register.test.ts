import type { Context, ScheduledEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as pollHandler } from '../functions/transfer-poll/handler.ts';
import { getDomain, readDomainCounts } from '../shared/db/repositories/domains.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { listRegistrationIntentsOf } from '../shared/db/repositories/registration-intents.ts';
import { getRegistrationLock } from '../shared/db/repositories/registrations.ts';
import { getRegistryDomain, putRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { listDueZones } from '../shared/db/repositories/zone-premium.ts';
import { settleRegistrationIntents } from '../shared/domains/registration-poll.ts';
import { premiumPaidUntil } from '../shared/model/zone.ts';
import { call, otherKey } from './support/api.ts';
import { failCalls } from './support/sdk-calls.ts';
import { processesOf } from './support/transfer.ts';

const wire = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const contacts = [
  { role: 'ADMIN', handle: 'demo-admin' },
  { role: 'TECH', handle: 'demo-tech' },
];
const body = { customer: 'demo', registrant: 'demo-registrant', contacts };

function register(domainName: string, payload: Record<string, unknown>, options: { query?: string; key?: string; idem?: string } = {}) {
  return call('POST', `/v2/domains/${domainName}${options.query ?? ''}`, {
    body: payload,
    ...(options.key ? { key: options.key } : {}),
    ...(options.idem ? { headers: { 'Idempotency-Key': options.idem } } : {}),
  });
}

/** The scheduled poller (transfers and registrations) at `at`. */
function poll(at: Date) {
  const event = { time: at.toISOString(), 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
  return pollHandler(event, { awsRequestId: crypto.randomUUID(), functionName: 'transfer-poll' } as Context);
}

async function notificationsOf(domainName: string) {
  const res = await call('GET', '/v2/customers/demo/notifications?limit=100');
  return (res.body.entities as { eventType: string; domainName?: string; subjectStatus?: string; expiryDate?: string }[]).filter(
    (n) => n.eventType === 'CreateDomainEvent' && n.domainName === domainName,
  );
}

describe('POST /v2/domains/{domainName}?quote=true', () => {
  it('quotes CREATE per year at the caller prices and writes nothing', async () => {
    const res = await register('quote-only-example.com', { ...body, period: 24 }, { query: '?quote=true' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      command: 'CreateDomainCommand',
      quote: {
        total: 2098,
        currency: 'EUR',
        billables: [
          { product: 'domain_com', action: 'CREATE', quantity: 2, amount: 1049, providerName: 'verisign', refundable: true, total: 2098 },
        ],
      },
    });
    expect(await readDomainCollection('quote-only-example.com')).toEqual({});
  });

  it('quotes PRIVACY_PROTECT when asked for, and the premium CREATE on the premium product', async () => {
    const privacy = await register('private-example.com', { ...body, privacyProtect: true }, { query: '?quote=true' });
    expect(privacy.body.quote.billables.map((b: { action: string }) => b.action)).toEqual(['CREATE', 'PRIVACY_PROTECT']);
    const premium = await register('register-premium.com', body, { query: '?quote=true' });
    expect(premium.body.quote).toMatchObject({
      total: 120000,
      billables: [{ product: 'domain_com_premium', action: 'CREATE', quantity: 1, amount: 120000 }],
    });
  });
});

describe('POST /v2/domains/{domainName}', () => {
  it('registers a free name at once (201 with expiryDate), as the PHP client sends it (?quote=false, nulls)', async () => {
    const countsBefore = await readDomainCounts('demo');
    const res = await register(
      'fresh-example.com',
      { ...body, period: 12, authcode: null, languageCode: null, skipValidation: null, launchPhase: null, privacyProtect: false },
      { query: '?quote=false' },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ domainName: 'fresh-example.com', expiryDate: expect.stringMatching(wire), status: ['OK'] });
    const processId = Number(res.headers['x-process-id']);
    const process = await getProcess(processId, 'demo');
    expect(process).toMatchObject({ type: 'domain', action: 'create', status: 'COMPLETED', currency: 'EUR' });
    expect(process?.billables).toEqual([
      { product: 'domain_com', action: 'CREATE', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
    ]);
    const domain = await getDomain('fresh-example.com');
    expect(domain).toMatchObject({ customer: 'demo', registrant: 'demo-registrant', contacts, status: ['OK'], autoRenew: true });
    expect(domain?.authcode).toMatch(/^[A-Za-z0-9]{16}$/);
    const countsAfter = await readDomainCounts('demo');
    expect(countsAfter()).toBe(countsBefore() + 1);
    expect(countsAfter('OK')).toBe(countsBefore('OK') + 1);
    expect((await call('GET', '/v2/domains/fresh-example.com')).body.expiryDate).toBe(res.body.expiryDate);
    expect((await call('GET', '/v2/domains/fresh-example.com/check')).body).toMatchObject({ available: false });
    const notified = await notificationsOf('fresh-example.com');
    expect(notified).toEqual([expect.objectContaining({ subjectStatus: 'OK', expiryDate: res.body.expiryDate })]);
    // Registered: a second registration, by anyone, is ObjectExists.
    expect((await register('fresh-example.com', body)).body).toMatchObject({ type: 'ObjectExists' });
    const otherContacts = [
      { role: 'ADMIN', handle: 'other-registrant' },
      { role: 'TECH', handle: 'other-registrant' },
    ];
    const other = await register(
      'fresh-example.com',
      { customer: 'other', registrant: 'other-registrant', contacts: otherContacts },
      { key: otherKey },
    );
    expect(other.status).toBe(400);
    expect(other.body.type).toBe('ObjectExists');
  });

  it('refuses a reserved name, a name the registry holds, and names nothing written', async () => {
    const reserved = await register('register-reserved.com', body);
    expect(reserved.status).toBe(400);
    expect(reserved.body).toMatchObject({ type: 'ValidationError' });
    const held = await register('transfer-now.nl', body);
    expect(held.body).toMatchObject({ type: 'ObjectExists' });
    expect(await readDomainCollection('register-reserved.com')).toEqual({});
  });

  it('needs the premium acknowledged, then charges it on the process', async () => {
    const refused = await register('register-premium.com', body);
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
    expect(await readDomainCollection('register-premium.com')).toEqual({});
    const res = await register('register-premium.com', {
      ...body,
      billables: [{ product: 'domain_com_premium', action: 'CREATE', quantity: 1 }],
    });
    expect(res.status).toBe(201);
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.billables).toEqual([
      expect.objectContaining({ product: 'domain_com_premium', action: 'CREATE', amount: 120000, total: 120000 }),
    ]);
    expect((await getDomain('register-premium.com'))?.premium).toBe(true);
  });

  it("applies the registry's rules: periods, contact roles, the registrant's properties, name servers, DNSSEC", async () => {
    const res = await register('rules-example.com', {
      customer: 'demo',
      registrant: 'demo-registrant',
      period: 18,
      ns: ['ns1.only-one.example'],
      contacts: [{ role: 'BILLING', handle: 'demo-billing' }],
      keyData: [{ protocol: 3, flags: 257, algorithm: 3, publicKey: 'AwEAAag=' }],
    });
    expect(res.status).toBe(400);
    const fields = (res.body.violations ?? []).map((v: { field: string }) => v.field);
    expect(fields).toEqual(expect.arrayContaining(['period', 'contacts', 'keyData[0].algorithm']));
    const nl = await register('rules-example.nl', { ...body, registrant: 'demo-admin', ns: ['ns1.only-one.example'] });
    expect(nl.status).toBe(400);
    expect(JSON.stringify(nl.body)).toMatch(/legalForm|name servers/);
    const missing = await register('rules-example.com', { ...body, registrant: 'no-such-contact' });
    expect(missing.status).toBe(400);
    expect(missing.body.type).toBe('ObjectDoesNotExist');
    const foreign = await register('rules-example.com', { ...body, customer: 'other' });
    expect(foreign.status).toBe(403);
  });

  it('keeps register-pending.nl pending (202), then completes it through the poller with its zone and notifications', async () => {
    const res = await register('register-pending.nl', { ...body, zone: { service: 'BASIC' } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ domainName: 'register-pending.nl' });
    const processId = Number(res.headers['x-process-id']);
    expect(await getProcess(processId, 'demo')).toMatchObject({
      status: 'RUNNING',
      billables: [expect.objectContaining({ action: 'CREATE' })],
    });
    expect(await getDomain('register-pending.nl')).toBeUndefined();
    expect((await register('register-pending.nl', body)).body.type).toMatch(/ObjectStatusProhibitsOperation|ObjectExists/);
    const early = await poll(new Date(Date.now() + 10_000));
    expect(early.registrations?.completed ?? 0).toBe(0);
    const later = await poll(new Date(Date.now() + 180_000));
    expect(later.registrations).toMatchObject({ completed: 1, errors: 0 });
    expect(await getProcess(processId, 'demo')).toMatchObject({ status: 'COMPLETED' });
    expect(await getRegistrationLock('register-pending.nl')).toBeUndefined();
    const { domain, zone } = await readDomainCollection('register-pending.nl');
    expect(domain).toMatchObject({ customer: 'demo', status: ['OK'] });
    expect(zone).toMatchObject({ customer: 'demo', managed: true, service: 'BASIC' });
    const notified = await notificationsOf('register-pending.nl');
    expect(notified.map((n) => n.subjectStatus).sort()).toEqual(['OK', 'PENDING']);
  });

  /** A free .nl name the sandbox registry takes pending, then fails a minute later. */
  const failsLater = (domainName: string) =>
    putRegistryDomain({
      domainName,
      registry: 'sidn',
      statuses: [],
      expiryDate: '2099-12-31T00:00:00Z',
      ns: [],
      keyData: [],
      designatedAgentAllowed: false,
      transfer: { stages: [], outcome: 'completed' },
      registration: 'available',
      createSeconds: 60,
      createFails: 'The registry refused the registrant.',
    });

  it('refunds a pending registration the registry fails, and notifies the failure with its reason', async () => {
    await failsLater('refused-later.nl');
    const res = await register('refused-later.nl', body);
    expect(res.status).toBe(202);
    const processId = Number(res.headers['x-process-id']);
    const summary = await poll(new Date(Date.now() + 120_000));
    expect(summary.registrations).toMatchObject({ failed: 1, errors: 0 });
    const process = await getProcess(processId, 'demo');
    expect(process).toMatchObject({ status: 'FAILED', details: { status: 'failed', refunded: true } });
    // Its charge, refunded whole.
    expect(process?.billables).toHaveLength(1);
    expect(process?.refund).toEqual({ EUR: process?.billables[0]?.total });
    expect(await readDomainCollection('refused-later.nl')).toEqual({});
    const notified = await notificationsOf('refused-later.nl');
    expect(notified.map((n) => n.subjectStatus).sort()).toEqual(['FAILED', 'PENDING']);
  });

  it('charges the PREMIUM zone it provisions (dns_premium CREATE) with the registration, once per Idempotency-Key; a BASIC zone is free', async () => {
    const premium = { ...body, zone: { service: 'PREMIUM' } };
    const quote = await register('zone-premium-reg.com', premium, { query: '?quote=true' });
    expect(quote.body.quote).toEqual({
      total: 1349,
      currency: 'EUR',
      billables: [
        { product: 'domain_com', action: 'CREATE', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
        { product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 300, providerName: 'dns', refundable: true, total: 300 },
      ],
    });
    const basic = await register('zone-premium-reg.com', { ...body, zone: { service: 'BASIC' } }, { query: '?quote=true' });
    expect(basic.body.quote.billables.map((b: { product: string }) => b.product)).toEqual(['domain_com']);
    // An acknowledged amount below the price now: the same 400 as for any billable, with the quote; nothing written.
    const stale = await register('zone-premium-reg.com', {
      ...premium,
      billables: [{ product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 100 }],
    });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ type: 'BillableAcknowledgmentNeededException', quote: quote.body.quote });
    expect(await readDomainCollection('zone-premium-reg.com')).toEqual({});

    const first = await register('zone-premium-reg.com', premium, { idem: 'reg-zone-premium' });
    expect(first.status).toBe(201);
    const replay = await register('zone-premium-reg.com', premium, { idem: 'reg-zone-premium' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-process-id']).toBe(first.headers['x-process-id']);
    const charged = (await processesOf('demo')).filter((p) => p.identifier === 'zone-premium-reg.com');
    expect(charged.map((p) => p.billables.map((b) => `${b.product} ${b.action} ${b.total}`))).toEqual([
      ['domain_com CREATE 1049', 'dns_premium CREATE 300'],
    ]);
    // The zone is PREMIUM, paid for a year from its creation, and listed for the expiry job's next charge.
    const { zone } = await readDomainCollection('zone-premium-reg.com');
    expect(zone).toMatchObject({ service: 'PREMIUM', managed: true, paidUntil: premiumPaidUntil(zone?.createdDate as string) });
    const due = await listDueZones(premiumPaidUntil(new Date(Date.now() + 86_400_000)), 100);
    expect(due.due).toContainEqual({ domainName: 'zone-premium-reg.com', dueDate: zone?.paidUntil });
  });

  it('refunds the PREMIUM zone with the rest when the registry fails a pending registration', async () => {
    await failsLater('refused-premium.nl');
    const res = await register('refused-premium.nl', { ...body, zone: { service: 'PREMIUM' } });
    expect(res.status).toBe(202);
    expect((await poll(new Date(Date.now() + 120_000))).registrations).toMatchObject({ failed: 1, errors: 0 });
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.billables.map((b) => b.product)).toEqual(['domain_nl', 'dns_premium']);
    expect(process?.refund).toEqual({ EUR: (process?.billables ?? []).reduce((sum, b) => sum + b.total, 0) });
    expect(await readDomainCollection('refused-premium.nl')).toEqual({});
  });

  it('replays a keyed registration, and a retry after the recording failed registers and charges once', async () => {
    const first = await register('keyed-example.com', body, { idem: 'reg-key-1' });
    expect(first.status).toBe(201);
    const again = await register('keyed-example.com', body, { idem: 'reg-key-1' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-process-id']).toBe(first.headers['x-process-id']);

    // The registry takes the name, then the table refuses the recording: nothing of ours is written.
    const restore = failCalls(
      (command, pks) => command === 'TransactWriteItemsCommand' && pks.some((p) => p.includes('crashed-example.com')),
      1,
    );
    const failed = await register('crashed-example.com', body, { idem: 'reg-key-2' });
    restore();
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await readDomainCollection('crashed-example.com')).toEqual({});
    const retried = await register('crashed-example.com', body, { idem: 'reg-key-2' });
    expect(retried.status).toBe(201);
    const creates = (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === 'crashed-example.com');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.billables).toHaveLength(1);
  });

  it('a registration whose recording failed and that no retry came for is adopted by the poller from its intent, charged once', async () => {
    const name = 'orphan-example.com';
    const restore = failCalls((command, pks) => command === 'TransactWriteItemsCommand' && pks.some((p) => p.includes(name)), 1);
    const failed = await register(name, { ...body, autoRenew: false }, { idem: 'reg-key-orphan' });
    restore();
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await readDomainCollection(name)).toEqual({});
    expect(await listRegistrationIntentsOf(name)).toEqual([expect.objectContaining({ customer: 'demo', user: 'alice' })]);
    // Within its request's life nothing is settled; after it, the registration the registry made is adopted.
    expect((await settleRegistrationIntents(new Date())).intents).toBe(0);
    const settled = await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000));
    expect(settled).toMatchObject({ adopted: 1, errors: 0 });
    expect(await listRegistrationIntentsOf(name)).toEqual([]);
    const domain = (await call('GET', `/v2/domains/${name}`)).body;
    expect(domain).toMatchObject({ domainName: name, autoRenew: false, expiryDate: (await getRegistryDomain(name))?.expiryDate });
    const creates = (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === name);
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ status: 'COMPLETED', user: 'alice', billables: [expect.objectContaining({ action: 'CREATE' })] });
    expect((await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000))).intents).toBe(0);
    const late = await register(name, body, { idem: 'reg-key-orphan' });
    expect(late.body).toMatchObject({ type: 'ObjectExists', message: `${name} is already in your account.` });
  });

  it('a registration the registry refuses leaves no intent behind', async () => {
    expect((await register('register-reserved.com', body)).status).toBe(400);
    expect((await register('transfer-now.nl', body)).status).toBe(400);
    expect(await listRegistrationIntentsOf('register-reserved.com')).toEqual([]);
    expect(await listRegistrationIntentsOf('transfer-now.nl')).toEqual([]);
  });
});

/**
 * The WHMCS module's register flows (realtimeregister/whmcs-domains, `Actions/Domains/RegisterDomain.php`
 * and `RegisterWithBillables.php`), each sending what the module sends through the PHP SDK's
 * `domains->register` (`privacyProtect` and `autoRenew` always, `null` for every unset scalar,
 * `?quote=false` or `?quote=true`): a registrant and ADMIN, BILLING and TECH contacts of the
 * customer, whatever the TLD; it reads "no expiryDate" as pending.
 */
describe('the WHMCS module registers', () => {
  const unset = { period: null, authcode: null, languageCode: null, skipValidation: null, launchPhase: null };
  const whmcsContacts = [
    { role: 'ADMIN', handle: 'demo-admin' },
    { role: 'BILLING', handle: 'demo-billing' },
    { role: 'TECH', handle: 'demo-tech' },
  ];

  it('RegisterDomain: period regperiod x 12, autoRenew false, ns, three contacts; the premium CREATE acknowledged up front', async () => {
    const sent = {
      customer: 'demo',
      registrant: 'demo-registrant',
      ...unset,
      privacyProtect: false,
      period: 12,
      autoRenew: false,
      ns: ['ns1.whmcs-host.example', 'ns2.whmcs-host.example'],
      contacts: whmcsContacts,
    };
    const nl = await register('whmcs-shop.nl', sent, { query: '?quote=false' });
    expect(nl.status, JSON.stringify(nl.body)).toBe(201);
    expect(nl.body.expiryDate).toMatch(wire);
    // .nl has no BILLING contact at SIDN: left out, not refused.
    expect((await getDomain('whmcs-shop.nl'))?.contacts).toEqual([
      { role: 'ADMIN', handle: 'demo-admin' },
      { role: 'TECH', handle: 'demo-tech' },
    ]);
    // A free premium name of its own (register-premium.com is registered above).
    await putRegistryDomain({
      domainName: 'whmcs-premium.com',
      registry: 'verisign',
      statuses: [],
      expiryDate: '2099-12-31T00:00:00Z',
      ns: [],
      keyData: [],
      designatedAgentAllowed: false,
      transfer: { stages: [], outcome: 'completed' },
      registration: 'available',
      premium: { currency: 'EUR', amount: 50000 },
    });
    const premium = await register(
      'whmcs-premium.com',
      { ...sent, billables: [{ action: 'CREATE', product: 'domain_com_premium', quantity: 1 }] },
      { query: '?quote=false' },
    );
    expect(premium.status, JSON.stringify(premium.body)).toBe(201);
    expect((await getProcess(Number(premium.headers['x-process-id']), 'demo'))?.billables).toEqual([
      expect.objectContaining({ product: 'domain_com_premium', action: 'CREATE', amount: 50000 }),
    ]);
    // Pending: no expiryDate, which the module reads as pending.
    await putRegistryDomain({
      domainName: 'whmcs-pending.nl',
      registry: 'sidn',
      statuses: [],
      expiryDate: '2099-12-31T00:00:00Z',
      ns: [],
      keyData: [],
      designatedAgentAllowed: false,
      transfer: { stages: [], outcome: 'completed' },
      registration: 'available',
      createSeconds: 120,
    });
    const pending = await register('whmcs-pending.nl', sent, { query: '?quote=false' });
    expect(pending.status).toBe(202);
    expect(pending.body.expiryDate).toBeUndefined();
  });

  it('RegisterWithBillables: quote first (isQuote), its billables echoed, then the registration', async () => {
    const sent = {
      customer: 'demo',
      registrant: 'demo-registrant',
      ...unset,
      privacyProtect: false,
      autoRenew: true,
      contacts: whmcsContacts,
    };
    const quote = await register('whmcs-billables.com', sent, { query: '?quote=true' });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({ command: 'CreateDomainCommand', quote: { currency: 'EUR', total: 1049 } });
    expect(await readDomainCollection('whmcs-billables.com')).toEqual({});
    // The module copies the quote's billables as {action, product, quantity} (only when there are several), then adds PRIVACY_PROTECT when ordered.
    const billables = [{ product: 'domain_com', action: 'PRIVACY_PROTECT', quantity: 1 }];
    const res = await register('whmcs-billables.com', { ...sent, billables }, { query: '?quote=false' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ domainName: 'whmcs-billables.com', expiryDate: expect.stringMatching(wire), status: ['OK'] });
  });
});

import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { getDomain, putDomain } from '../shared/db/repositories/domains.ts';
import { getRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { leaseMs } from '../shared/http/idempotency.ts';
import type { DomainInput } from '../shared/model/domain.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { processesOf, sandboxDomain } from './support/transfer.ts';

/**
 * Renew, delete and restore (docs/domains.md, "Life cycle") through the real handlers and the
 * sandbox registry: quotes, the expiry guard in both of its wire forms, the registry's periods and
 * maximum term, the delete lock, the redemption period, charges in the process's billables, and an
 * Idempotency-Key that never renews or charges twice across a crash. The WHMCS module's renew and
 * restore flows are sent as the module sends them (quote first in its "WithBillables" mode).
 */

/** A domain of the demo customer written straight to the account (a .com at Verisign unless overridden). */
async function demoDomain(domainName: string, overrides: Partial<DomainInput> = {}): Promise<void> {
  await putDomain({
    domainName,
    customer: 'demo',
    registry: domainName.endsWith('.nl') ? 'sidn' : 'verisign',
    registrant: 'demo-registrant',
    contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
    ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
    keyData: [],
    privacyProtect: false,
    autoRenew: false,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: '2025-01-01T00:00:00Z',
    updatedDate: '2025-01-01T00:00:00Z',
    expiryDate: '2027-04-01T00:00:00Z',
    ...overrides,
  });
}

type Options = { quote?: boolean; headers?: Record<string, string>; key?: string };
const opts = (o: Options) => ({ ...(o.headers ? { headers: o.headers } : {}), ...(o.key ? { key: o.key } : {}) });
const renew = (name: string, body: unknown, o: Options = {}) =>
  call('POST', `/v2/domains/${name}/renew${o.quote ? '?quote=true' : ''}`, { body, ...opts(o) });
const restore = (name: string, body: unknown, o: Options = {}) =>
  call('POST', `/v2/domains/${name}/restore${o.quote ? '?quote=true' : ''}`, { body, ...opts(o) });
const remove = (name: string, o: Options = {}) => call('DELETE', `/v2/domains/${name}`, opts(o));
const get = (name: string) => call('GET', `/v2/domains/${name}`);
const processesFor = async (name: string) => (await processesOf('demo')).filter((p) => p.identifier === name);
const key = () => ({ 'Idempotency-Key': crypto.randomUUID() });

describe('POST /v2/domains/{domainName}/renew', () => {
  it('quotes RENEW at the customer price, renews, charges it on the process and notifies', async () => {
    await demoDomain('renew-once.com');
    const quote = await renew('renew-once.com', { period: 24 }, { quote: true });
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual({
      command: 'RenewDomainCommand',
      quote: {
        currency: 'EUR',
        total: 2098,
        billables: [
          { product: 'domain_com', action: 'RENEW', quantity: 2, amount: 1049, providerName: 'verisign', refundable: true, total: 2098 },
        ],
      },
    });
    expect(await processesFor('renew-once.com')).toEqual([]);
    const res = await renew('renew-once.com', { period: 24 });
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toEqual({ domainName: 'renew-once.com', expiryDate: '2029-04-01T00:00:00Z' });
    const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`);
    expect(process.body).toMatchObject({
      type: 'domain',
      action: 'renew',
      status: 'COMPLETED',
      identifier: 'renew-once.com',
      billables: quote.body.quote.billables,
    });
    expect((await get('renew-once.com')).body.expiryDate).toBe('2029-04-01T00:00:00Z');
    expect((await getRegistryDomain('renew-once.com'))?.expiryDate).toBe('2029-04-01T00:00:00Z');
    const notices = await call('GET', '/v2/customers/demo/notifications?eventType=RenewDomainEvent');
    expect(notices.body.entities).toContainEqual(
      expect.objectContaining({
        domainName: 'renew-once.com',
        notificationType: 'RenewDomainNotification',
        expiryDate: '2029-04-01T00:00:00Z',
      }),
    );
  });

  it('renews a premium domain at its premium RENEW price on the premium product, acknowledged as its premium CREATE was', async () => {
    const name = 'register-premium.com';
    const registration = {
      customer: 'demo',
      registrant: 'demo-registrant',
      contacts: [
        { role: 'ADMIN', handle: 'demo-admin' },
        { role: 'TECH', handle: 'demo-tech' },
      ],
      billables: [{ product: 'domain_com_premium', action: 'CREATE', quantity: 1 }],
    };
    const registered = await call('POST', `/v2/domains/${name}`, { body: registration });
    expect(registered.status, registered.raw).toBe(201);
    const quote = await renew(name, { period: 24 }, { quote: true });
    expect(quote.status, quote.raw).toBe(200);
    expect(quote.body.quote.billables).toEqual([
      {
        product: 'domain_com_premium',
        action: 'RENEW',
        quantity: 2,
        amount: 120000,
        providerName: 'verisign',
        refundable: true,
        total: 240000,
      },
    ]);
    const unacknowledged = await renew(name, { period: 24 });
    expect(unacknowledged.status).toBe(400);
    expect(unacknowledged.body).toMatchObject({ type: 'BillableAcknowledgmentNeededException', quote: quote.body.quote });
    expect((await processesFor(name)).map((p) => p.action)).toEqual(['create']);
    const res = await renew(name, { period: 24, billables: quote.body.quote.billables });
    expect(res.status, res.raw).toBe(200);
    const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`);
    expect(process.body).toMatchObject({ action: 'renew', billables: quote.body.quote.billables });
    expect((await getRegistryDomain(name))?.expiryDate).toBe(res.body.expiryDate);
  });

  it('takes the expiry guard in ISO 8601 and as the PHP SDK DateTime object, and refuses one that differs', async () => {
    await demoDomain('renew-guard.com');
    const iso = await renew('renew-guard.com', { period: 12, expiryDate: '2027-04-01T02:00:00.000+02:00' });
    expect(iso.status, iso.raw).toBe(200);
    expect(iso.body.expiryDate).toBe('2028-04-01T00:00:00Z');
    const php = await renew('renew-guard.com', {
      period: 12,
      expiryDate: { date: '2028-04-01 00:00:00.000000', timezone_type: 3, timezone: 'UTC' },
    });
    expect(php.status, php.raw).toBe(200);
    expect(php.body.expiryDate).toBe('2029-04-01T00:00:00Z');
    const stale = await renew('renew-guard.com', { period: 12, expiryDate: '2028-04-01T00:00:00Z' });
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ type: 'ValidationError', violations: [expect.objectContaining({ field: 'expiryDate' })] });
    const zoned = await renew('renew-guard.com', {
      period: 12,
      expiryDate: { date: '2029-04-01 02:00:00.000000', timezone_type: 3, timezone: 'Europe/Amsterdam' },
    });
    expect(zoned.status).toBe(400);
    expect(zoned.body.type).toBe('ConstraintViolationException');
    expect((await processesFor('renew-guard.com')).map((p) => p.action)).toEqual(['renew', 'renew']);
  });

  it("refuses a period the registry does not renew for and one past the registry's maximum term, naming it", async () => {
    await demoDomain('renew-rules.nl');
    const period = await renew('renew-rules.nl', { period: 24 });
    expect(period.status).toBe(400);
    expect(period.body.violations).toEqual([expect.objectContaining({ field: 'period', message: expect.stringContaining('3, 12') })]);
    await demoDomain('renew-term.com', { expiryDate: '2030-01-01T00:00:00Z' });
    const term = await renew('renew-term.com', { period: 120 });
    expect(term.status).toBe(400);
    expect(term.body.message).toContain('maximum term of 10 years');
    expect(term.body.violations).toEqual([expect.objectContaining({ field: 'period' })]);
    expect(await processesFor('renew-term.com')).toEqual([]);
  });

  it('refuses a renew lock and a registry refusal without charging; another customer domain answers like a missing one', async () => {
    await demoDomain('renew-locked.com', { status: ['CLIENT_RENEW_PROHIBITED'] });
    expect((await renew('renew-locked.com', { period: 12 })).body.type).toBe('ObjectStatusProhibitsOperation');
    await demoDomain('renew-refused.com');
    await sandboxDomain('renew-refused.com', { expiryDate: '2027-04-01T00:00:00Z', statuses: ['serverRenewProhibited'] });
    const refused = await renew('renew-refused.com', { period: 12 });
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ObjectStatusProhibitsOperation');
    expect(await processesFor('renew-refused.com')).toEqual([]);
    expect((await getDomain('renew-refused.com'))?.expiryDate).toBe('2027-04-01T00:00:00Z');
    const foreign = await renew('other-site.com', { period: 12 });
    const missing = await renew('no-such-name.com', { period: 12 });
    expect(foreign.status).toBe(404);
    expect([foreign.body.type, foreign.body.objectType]).toEqual([missing.body.type, missing.body.objectType]);
  });

  it('an acknowledged amount below the price is refused with the new quote (the transfer rules)', async () => {
    await demoDomain('renew-ack.com');
    const res = await renew('renew-ack.com', {
      period: 12,
      billables: [{ product: 'domain_com', action: 'RENEW', quantity: 1, amount: 999 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('BillableAcknowledgmentNeededException');
    expect(await processesFor('renew-ack.com')).toEqual([]);
  });
});

describe('DELETE /v2/domains/{domainName} and POST .../restore', () => {
  it('a delete lock keeps the domain; a delete moves it into redemption, listed and counted so; a restore charges RESTORE and brings it back', async () => {
    await demoDomain('life-delete.com', { status: ['CLIENT_DELETE_PROHIBITED'] });
    const locked = await remove('life-delete.com');
    expect(locked.status).toBe(400);
    expect(locked.body).toMatchObject({
      type: 'ObjectStatusProhibitsOperation',
      message: expect.stringContaining('CLIENT_DELETE_PROHIBITED'),
    });
    expect((await call('POST', '/v2/domains/life-delete.com/update', { body: { status: [] } })).status).toBe(200);
    const notYet = await restore('life-delete.com', { reason: 'by mistake' });
    expect(notYet.body.type).toBe('ObjectStatusProhibitsOperation');

    const deleted = await remove('life-delete.com');
    expect(deleted.status, deleted.raw).toBe(200);
    expect(deleted.body).toEqual({ domainName: 'life-delete.com' });
    expect(deleted.headers['x-process-id']).toMatch(/^\d+$/);
    expect((await get('life-delete.com')).body.status).toEqual(['REDEMPTION_PERIOD']);
    const listed = await call('GET', '/v2/domains?status=REDEMPTION_PERIOD&fields=domainName');
    expect(listed.body.entities).toContainEqual({ domainName: 'life-delete.com' });
    expect(listed.body.pagination.total).toBe(listed.body.entities.length);
    expect((await remove('life-delete.com')).body.type).toBe('ObjectStatusProhibitsOperation');
    expect((await renew('life-delete.com', { period: 12 })).body.message).toContain('restore it');

    const quote = await restore('life-delete.com', { reason: 'by mistake' }, { quote: true });
    expect(quote.body).toEqual({
      command: 'RestoreDomainCommand',
      quote: {
        currency: 'EUR',
        total: 6500,
        billables: [
          { product: 'domain_com', action: 'RESTORE', quantity: 1, amount: 6500, providerName: 'verisign', refundable: true, total: 6500 },
        ],
      },
    });
    const restored = await restore('life-delete.com', { reason: 'by mistake' });
    expect(restored.status, restored.raw).toBe(200);
    expect(restored.body).toEqual({ domainName: 'life-delete.com', expiryDate: '2027-04-01T00:00:00Z' });
    expect((await get('life-delete.com')).body.status).toEqual(['OK']);
    const actions = (await processesFor('life-delete.com')).map((p) => [p.action, p.billables.map((b) => b.action)]);
    expect(actions).toEqual([
      ['update', []],
      ['delete', []],
      ['restore', ['RESTORE']],
    ]);
    const after = await call('GET', '/v2/domains?status=REDEMPTION_PERIOD&fields=domainName');
    expect(after.body.entities).not.toContainEqual({ domainName: 'life-delete.com' });
  });

  it('another customer domain cannot be deleted or restored: 404 like a missing one', async () => {
    expect((await remove('other-site.com')).status).toBe(404);
    expect((await restore('other-site.com', { reason: 'x' })).status).toBe(404);
    expect((await remove('demo-shop.nl', { key: otherKey })).status).toBe(404);
    expect((await getDomain('other-site.com'))?.status).toEqual(['OK']);
  });
});

describe('Idempotency-Key on renew: never renewed or charged twice', () => {
  /** Holds table calls that `when` picks at the SDK client until released (a function that stopped there). */
  function hold(when: (command: string, input: string) => boolean, every = false) {
    const name = `hold-${crypto.randomUUID()}`;
    let reached!: () => void;
    const arrived = new Promise<void>((r) => {
      reached = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let first = true;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if ((!first && !every) || !when(String(context.commandName), JSON.stringify(args.input))) return next(args);
        first = false;
        reached();
        await released;
        return next(args);
      },
      { step: 'initialize', name },
    );
    return { arrived, release, stop: () => db().middlewareStack.remove(name) };
  }

  it('replays a renewal with the same key and body', async () => {
    await demoDomain('renew-key.com');
    const headers = key();
    const first = await renew('renew-key.com', { period: 12 }, { headers });
    const again = await renew('renew-key.com', { period: 12 }, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.raw).toBe(first.raw);
    expect(await processesFor('renew-key.com')).toHaveLength(1);
  });

  it('a crash after the registry renewed and before the record: the retry takes the lapsed key over, the registry answers that renewal, one charge', {
    timeout: 60_000,
  }, async () => {
    await demoDomain('renew-crash.com');
    const headers = key();
    // The first attempt stops at its recording transaction (after the registry renewed); its lease renewals stop with it.
    const transaction = hold((command, input) => command.startsWith('TransactWrite') && input.includes('renew-crash.com'));
    const renewals = hold((command, input) => command.startsWith('Update') && input.includes('IDEMPOTENCY#domain-renew#'), true);
    let late: Promise<ApiResponse> | undefined;
    try {
      late = renew('renew-crash.com', { period: 12 }, { headers });
      await transaction.arrived;
      expect((await getRegistryDomain('renew-crash.com'))?.expiryDate).toBe('2028-04-01T00:00:00Z');
      const started = Date.now();
      const retry = await renew('renew-crash.com', { period: 12 }, { headers });
      expect(Date.now() - started).toBeLessThan(leaseMs + 5000);
      expect(retry.status, retry.raw).toBe(200);
      expect(retry.body.expiryDate).toBe('2028-04-01T00:00:00Z');
      transaction.release();
      renewals.release();
      const woken = await late;
      expect(woken.raw).toBe(retry.raw);
      const processes = await processesFor('renew-crash.com');
      expect(processes.map((p) => p.billables.map((b) => `${b.action}x${b.quantity}`))).toEqual([['RENEWx1']]);
      expect((await getDomain('renew-crash.com'))?.expiryDate).toBe('2028-04-01T00:00:00Z');
      expect((await getRegistryDomain('renew-crash.com'))?.expiryDate).toBe('2028-04-01T00:00:00Z');
    } finally {
      transaction.release();
      renewals.release();
      transaction.stop();
      renewals.stop();
      await late;
    }
  });
});

describe('the WHMCS module, as it sends them', () => {
  it('renews (RenewDomain: period = regperiod x 12, no billables) and with billables quotes first (RenewDomainWithBillables)', async () => {
    await demoDomain('whmcs-renew.nl', { expiryDate: '2027-02-01T00:00:00Z' });
    const plain = await renew('whmcs-renew.nl', { period: 12, billables: null, expiryDate: null });
    expect(plain.status, plain.raw).toBe(200);
    expect(plain.body.expiryDate).toBe('2028-02-01T00:00:00Z');
    const quote = await renew('whmcs-renew.nl', { period: 12 }, { quote: true });
    const billables = quote.body.quote.billables.map((b: { action: string; product: string; quantity: number }) => ({
      action: b.action,
      product: b.product,
      quantity: b.quantity,
    }));
    const withBillables = await renew('whmcs-renew.nl', { period: 12, billables });
    expect(withBillables.status, withBillables.raw).toBe(200);
    expect(withBillables.body).toEqual({ domainName: 'whmcs-renew.nl', expiryDate: '2029-02-01T00:00:00Z' });
    expect((await processesFor('whmcs-renew.nl')).map((p) => p.billables[0]?.total)).toEqual([549, 549]);
  });

  it('restores a domain in redemption (RenewDomain calls restore with a reason) and with billables quotes first', async () => {
    await demoDomain('whmcs-restore.nl');
    await demoDomain('whmcs-restore2.nl');
    for (const name of ['whmcs-restore.nl', 'whmcs-restore2.nl']) expect((await remove(name)).status).toBe(200);
    const plain = await restore('whmcs-restore.nl', { reason: 'Domain restore requested via WHMCS', billables: null });
    expect(plain.status, plain.raw).toBe(200);
    const quote = await restore('whmcs-restore2.nl', { reason: 'Domain restore requested via WHMCS' }, { quote: true });
    expect(quote.body.command).toBe('RestoreDomainCommand');
    const billables = quote.body.quote.billables.map((b: { action: string; product: string; quantity: number }) => ({
      action: b.action,
      product: b.product,
      quantity: b.quantity,
    }));
    const withBillables = await restore('whmcs-restore2.nl', { reason: 'Domain restore requested via WHMCS', billables });
    expect(withBillables.status, withBillables.raw).toBe(200);
    expect(withBillables.body).toEqual({ domainName: 'whmcs-restore2.nl', expiryDate: '2027-04-01T00:00:00Z' });
    for (const name of ['whmcs-restore.nl', 'whmcs-restore2.nl']) {
      expect((await processesFor(name)).flatMap((p) => p.billables.map((b) => `${b.action} ${b.total}`))).toEqual(['RESTORE 1500']);
    }
  });
});

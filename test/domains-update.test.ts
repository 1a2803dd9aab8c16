import { describe, expect, it } from 'vitest';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { getRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import type { DomainInput } from '../shared/model/domain.ts';
import { sandboxRegistry } from '../shared/registry/sandbox.ts';
import { call, limitedKey, otherKey } from './support/api.ts';

/** A .com of the demo customer at Verisign, written straight to the account. */
async function demoDomain(domainName: string, overrides: Partial<DomainInput> = {}): Promise<void> {
  await putDomain({
    domainName,
    customer: 'demo',
    registry: 'verisign',
    registrant: 'demo-registrant',
    contacts: [
      { role: 'ADMIN', handle: 'demo-admin' },
      { role: 'TECH', handle: 'demo-tech' },
    ],
    ns: ['ns1.registrar-sandbox.example', 'ns2.registrar-sandbox.example'],
    keyData: [],
    privacyProtect: false,
    autoRenew: true,
    autoRenewPeriod: 12,
    premium: false,
    status: ['OK'],
    createdDate: '2025-01-01T00:00:00Z',
    updatedDate: '2025-01-01T00:00:00Z',
    expiryDate: '2027-04-01T00:00:00Z',
    ...overrides,
  });
}

const update = (domainName: string, body: unknown, options: { key?: string; quote?: boolean; headers?: Record<string, string> } = {}) =>
  call('POST', `/v2/domains/${domainName}/update?quote=${options.quote ? 'true' : 'false'}`, {
    body,
    ...(options.key ? { key: options.key } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
const get = (domainName: string) => call('GET', `/v2/domains/${domainName}`);

describe('POST /v2/domains/{domainName}/update', () => {
  it('changes the name servers, answers 200 with the completed process in X-Process-Id, and the registry holds them', async () => {
    await demoDomain('ns-change.com');
    const res = await update('ns-change.com', { ns: ['ns1.example.net', 'ns2.example.net'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ns).toEqual(['ns1.example.net', 'ns2.example.net']);
    const processId = res.headers['x-process-id'];
    expect(processId).toMatch(/^\d+$/);
    const process = await call('GET', `/v2/processes/${processId}`);
    expect(process.body).toMatchObject({
      type: 'domain',
      action: 'update',
      identifier: 'ns-change.com',
      status: 'COMPLETED',
      resumeTypes: [],
    });
    expect((await get('ns-change.com')).body.ns).toEqual(['ns1.example.net', 'ns2.example.net']);
    expect((await getRegistryDomain('ns-change.com'))?.ns).toEqual(['ns1.example.net', 'ns2.example.net']);
    const listed = await call('GET', '/v2/processes?identifier=ns-change.com&action=update');
    expect(listed.body.entities.map((p: { id: number }) => String(p.id))).toEqual([processId]);
  });

  it('writes an UpdateDomainEvent notification naming the fields changed', async () => {
    await demoDomain('notify-me.com');
    const res = await update('notify-me.com', { autoRenew: false, privacyProtect: false });
    expect(res.status).toBe(200);
    const notes = await call('GET', '/v2/customers/demo/notifications?eventType=UpdateDomainEvent&limit=100');
    expect(notes.status, JSON.stringify(notes.body)).toBe(200);
    const mine = notes.body.entities.find((n: { process?: number }) => String(n.process) === res.headers['x-process-id']);
    expect(mine).toMatchObject({
      eventType: 'UpdateDomainEvent',
      notificationType: 'UpdateDomainNotification',
      subjectStatus: 'OK',
      domainName: 'notify-me.com',
    });
    expect(mine.payload).toEqual({ fields: ['autoRenew'] });
  });

  it('refuses a name server under the domain that is not one of its child hosts, and takes one that is', async () => {
    await demoDomain('glue.com', { childHosts: ['ns1.glue.com'] });
    const bad = await update('glue.com', { ns: ['ns1.glue.com', 'ns2.glue.com'] });
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe('ValidationError');
    expect(JSON.stringify(bad.body)).toContain('ns2.glue.com');
    const good = await update('glue.com', { ns: ['ns1.glue.com', 'ns1.example.net'] });
    expect(good.status).toBe(200);
  });

  it('refuses to add a registry status, keeps the registry statuses, and lets IRTPC_TRANSFER_PROHIBITED go', async () => {
    await demoDomain('server-held.com', { status: ['SERVER_DELETE_PROHIBITED', 'IRTPC_TRANSFER_PROHIBITED'] });
    const refused = await update('server-held.com', { status: ['SERVER_HOLD'] });
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ValidationError');
    const res = await update('server-held.com', { status: ['SERVER_DELETE_PROHIBITED', 'CLIENT_DELETE_PROHIBITED'] });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual(['SERVER_DELETE_PROHIBITED', 'CLIENT_DELETE_PROHIBITED']);
  });

  it('refuses every change but lifting it while CLIENT_UPDATE_PROHIBITED stands', async () => {
    await demoDomain('frozen.com', { status: ['CLIENT_UPDATE_PROHIBITED'] });
    const refused = await update('frozen.com', { ns: ['ns1.example.net', 'ns2.example.net'] });
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ObjectStatusProhibitsOperation');
    const lifted = await update('frozen.com', { status: [], ns: ['ns1.example.net', 'ns2.example.net'] });
    expect(lifted.status).toBe(200);
    expect(lifted.body.status).toEqual(['OK']);
  });

  it('privacy on charges PRIVACY_PROTECT at the price list: the quote, then the update', async () => {
    await demoDomain('private.com');
    const quote = await update('private.com', { privacyProtect: true }, { quote: true });
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual({
      command: 'UpdateDomainCommand',
      quote: {
        total: 250,
        currency: 'EUR',
        billables: [
          {
            product: 'domain_com',
            action: 'PRIVACY_PROTECT',
            quantity: 1,
            amount: 250,
            providerName: 'verisign',
            refundable: true,
            total: 250,
          },
        ],
      },
    });
    expect((await get('private.com')).body.privacyProtect).toBe(false);
    const free = await update('private.com', { autoRenew: false }, { quote: true });
    expect(free.body).toEqual({ command: 'UpdateDomainCommand', quote: { total: 0 } });
    const res = await update('private.com', { privacyProtect: true });
    expect(res.status).toBe(200);
    const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`);
    expect(process.body.billables).toEqual([
      {
        product: 'domain_com',
        action: 'PRIVACY_PROTECT',
        quantity: 1,
        amount: 250,
        providerName: 'verisign',
        refundable: true,
        total: 250,
      },
    ]);
  });

  it('charges the PREMIUM zone a `zone` provisions (dns_premium CREATE) with the update, once per Idempotency-Key; BASIC is free', async () => {
    await demoDomain('zone-premium-update.com');
    const premium = { zone: { service: 'PREMIUM' } };
    const quote = await update('zone-premium-update.com', { ...premium, privacyProtect: true }, { quote: true });
    expect(quote.body.quote).toMatchObject({
      total: 550,
      currency: 'EUR',
      billables: [
        expect.objectContaining({ product: 'domain_com', action: 'PRIVACY_PROTECT', total: 250 }),
        { product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 300, providerName: 'dns', refundable: true, total: 300 },
      ],
    });
    const basic = await update('zone-premium-update.com', { zone: { service: 'BASIC' } }, { quote: true });
    expect(basic.body).toEqual({ command: 'UpdateDomainCommand', quote: { total: 0 } });
    const headers = { 'Idempotency-Key': 'update-zone-premium' };
    const res = await update('zone-premium-update.com', premium, { headers });
    expect(res.status).toBe(200);
    expect(res.body.zone).toMatchObject({ service: 'PREMIUM' });
    const replay = await update('zone-premium-update.com', premium, { headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-process-id']).toBe(res.headers['x-process-id']);
    const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`);
    expect(process.body.billables.map((b: { product: string; total: number }) => `${b.product} ${b.total}`)).toEqual(['dns_premium 300']);
    const processes = await call('GET', '/v2/processes?identifier=zone-premium-update.com&limit=100');
    expect(processes.body.entities).toHaveLength(1);
    // The managed zone sent back as it is changes (and charges) nothing.
    const again = await update('zone-premium-update.com', { zone: res.body.zone });
    expect((await call('GET', `/v2/processes/${again.headers['x-process-id']}`)).body.billables).toEqual([]);
  });

  it('needs the PREMIUM zone acknowledged where its price is in another currency than the request (converted), like any billable', async () => {
    const { putPrice } = await import('../shared/db/repositories/prices.ts');
    const price = { customer: 'other', product: 'dns_premium', action: 'CREATE', fromDate: '2026-01-01T00:00:00Z' } as const;
    await demoDomain('other-zone-premium.com', { customer: 'other', registrant: 'other-registrant', contacts: [] });
    await putPrice({ ...price, currency: 'EUR', price: 300 });
    try {
      // Privacy priced in USD, the zone in EUR: the request is charged in USD, the zone's line converted.
      const body = { privacyProtect: true, zone: { service: 'PREMIUM' } };
      const refused = await update('other-zone-premium.com', body, { key: otherKey });
      expect(refused.status).toBe(400);
      expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
      const line = refused.body.quote.billables[1];
      expect(line).toMatchObject({ product: 'dns_premium', action: 'CREATE', quantity: 1 });
      expect(refused.body.quote.currency).toBe('USD');
      expect(line.amount).toBeGreaterThan(300);
      expect((await get('other-zone-premium.com')).body.zone).toBeUndefined();
      const res = await update('other-zone-premium.com', { ...body, billables: refused.body.quote.billables }, { key: otherKey });
      expect(res.status).toBe(200);
      expect(res.body.zone).toMatchObject({ service: 'PREMIUM' });
      const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`, { key: otherKey });
      expect(process.body.billables).toEqual(refused.body.quote.billables);
    } finally {
      await putPrice({ ...price, currency: 'USD', price: 350 });
    }
  });

  it('changes the registrant of a gTLD with the 60-day transfer lock, unless the old registrant opts out', async () => {
    await demoDomain('new-owner.com');
    const res = await update('new-owner.com', { registrant: 'demo-admin' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.registrant).toBe('demo-admin');
    expect(res.body.status).toEqual(['IRTPC_TRANSFER_PROHIBITED']);
    expect((await getRegistryDomain('new-owner.com'))?.statuses).toEqual(['irtpcTransferProhibited']);
    await demoDomain('opted-out.com');
    const optOut = await update('opted-out.com', { registrant: 'demo-admin', designatedAgent: 'OLD' });
    expect(optOut.body.status).toEqual(['OK']);
    const noPermission = await update('opted-out.com', { registrant: 'demo-tech', designatedAgent: 'OLD' }, { key: limitedKey });
    expect(noPermission.status).toBe(403);
  });

  it('refuses handles that are not contacts of the account, naming the field', async () => {
    await demoDomain('contacts.com');
    const res = await update('contacts.com', { registrant: 'other-registrant', contacts: [{ role: 'ADMIN', handle: 'nobody-here' }] });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['contacts', 'registrant']);
  });

  it('sets keyData and dsData', async () => {
    await demoDomain('signed.com');
    const keyData = [
      {
        protocol: 3,
        flags: 257,
        algorithm: 13,
        publicKey: 'RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPLGh1eikgv7PuELQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==',
      },
    ];
    const dsData = [{ keyTag: 12345, algorithm: 13, digestType: 2, digest: 'a'.repeat(64) }];
    const res = await update('signed.com', { keyData, dsData });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.keyData).toEqual(keyData);
    expect(res.body.dsData).toEqual([{ ...dsData[0], digest: 'A'.repeat(64) }]);
  });

  it("answers another customer's domain like a missing one, and writes nothing", async () => {
    const foreign = await update('other-site.com', { autoRenew: true });
    const missing = await update('never-there.com', { autoRenew: true });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.type).toBe(missing.body.type);
    expect((await call('GET', '/v2/domains/other-site.com', { key: otherKey })).body.autoRenew).toBe(false);
  });

  it('refuses bad bodies with 400: a period, an unknown field, a status not of the API, a bad autoRenewPeriod', async () => {
    await demoDomain('bad-bodies.com');
    for (const body of [{ period: 12 }, { colour: 'red' }, { status: ['ok'] }, { autoRenewPeriod: 13 }, { ns: ['not a host'] }]) {
      const res = await update('bad-bodies.com', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(['ConstraintViolationException', 'ValidationError', 'UnrecognizedPropertyException']).toContain(res.body.type);
    }
    // The PHP SDK's nulls are absent.
    const nulls = await update('bad-bodies.com', { period: null, languageCode: null, autoRenew: false });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(200);
  });

  it('replays an update with the same Idempotency-Key and changes nothing the second time', async () => {
    await demoDomain('idem-update.com');
    const headers = { 'Idempotency-Key': 'update-once-1' };
    const first = await update('idem-update.com', { authcode: '' }, { headers });
    const second = await update('idem-update.com', { authcode: '' }, { headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['x-process-id']).toBe(first.headers['x-process-id']);
    expect((await get('idem-update.com')).body.authcode).toBe(first.body.authcode);
  });
});

describe('the registrar lock', () => {
  it('is enforced at the registry: a locked name is refused to any transfer', async () => {
    await demoDomain('lock-me.com');
    const res = await update('lock-me.com', { status: ['OK', 'CLIENT_TRANSFER_PROHIBITED'] });
    expect(res.body.status).toEqual(['CLIENT_TRANSFER_PROHIBITED']);
    await expect(sandboxRegistry.prepareTransfer({ domainName: 'lock-me.com', registry: 'verisign' })).rejects.toMatchObject({
      type: 'ObjectStatusProhibitsOperation',
    });
    const unlocked = await update('lock-me.com', { status: [] });
    expect(unlocked.body.status).toEqual(['OK']);
    const candidate = await sandboxRegistry.prepareTransfer({ domainName: 'lock-me.com', registry: 'verisign' });
    expect(candidate.domainName).toBe('lock-me.com');
  });
});

/**
 * The WHMCS registrar module's calls for these flows, as its source sends them through the PHP SDK
 * (which always adds ?quote=false to an update, and leaves out every field it was not given).
 */
describe('the WHMCS module flows', () => {
  it('expiry sync: GET /v2/domains?export=true&fields=domainName,expiryDate', async () => {
    const res = await call('GET', '/v2/domains?export=true&fields=domainName,expiryDate');
    expect(res.status).toBe(200);
    expect(res.body.entities).toContainEqual({ domainName: 'demo-secure.com', expiryDate: '2027-06-12T09:00:00Z' });
    expect(res.body.entities.every((d: object) => Object.keys(d).sort().join() === 'domainName,expiryDate')).toBe(true);
  });

  it('lock toggle: the current statuses plus CLIENT_TRANSFER_PROHIBITED, then without it', async () => {
    await demoDomain('whmcs-lock.com');
    const current = (await get('whmcs-lock.com')).body.status as string[];
    expect(current.includes('CLIENT_TRANSFER_PROHIBITED')).toBe(false);
    const locked = await update('whmcs-lock.com', { status: [...current, 'CLIENT_TRANSFER_PROHIBITED'] });
    expect(locked.status).toBe(200);
    const now = (await get('whmcs-lock.com')).body.status as string[];
    expect(now).toContain('CLIENT_TRANSFER_PROHIBITED');
    const unlocked = await update('whmcs-lock.com', { status: now.filter((s) => s !== 'CLIENT_TRANSFER_PROHIBITED') });
    expect(unlocked.status).toBe(200);
    expect((await get('whmcs-lock.com')).body.status).toEqual(['OK']);
  });

  it('EPP code: no authcode, so update(authcode: "") and get again', async () => {
    await demoDomain('whmcs-epp.com');
    expect((await get('whmcs-epp.com')).body.authcode).toBeUndefined();
    const res = await update('whmcs-epp.com', { authcode: '' });
    expect(res.status).toBe(200);
    const code = (await get('whmcs-epp.com')).body.authcode;
    expect(code).toMatch(/^[A-Za-z0-9]{16}$/);
    expect((await getRegistryDomain('whmcs-epp.com'))?.authcode).toBe(code);
    // The process never keeps it.
    const process = await call('GET', `/v2/processes/${res.headers['x-process-id']}`);
    expect(JSON.stringify(process.body)).not.toContain(code);
  });

  it('name server change: update(ns)', async () => {
    await demoDomain('whmcs-ns.com');
    const res = await update('whmcs-ns.com', { ns: ['ns1.whmcs-host.example', 'ns2.whmcs-host.example', 'ns3.whmcs-host.example'] });
    expect(res.status).toBe(200);
    expect((await get('whmcs-ns.com')).body.ns).toEqual(['ns1.whmcs-host.example', 'ns2.whmcs-host.example', 'ns3.whmcs-host.example']);
  });

  it('contact change: update(registrant, contacts of every role)', async () => {
    await demoDomain('whmcs-contacts.com');
    const contacts = [
      { role: 'ADMIN', handle: 'demo-billing' },
      { role: 'BILLING', handle: 'demo-billing' },
      { role: 'TECH', handle: 'demo-tech' },
    ];
    const res = await update('whmcs-contacts.com', { registrant: 'demo-admin', contacts });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = (await get('whmcs-contacts.com')).body;
    expect(after.registrant).toBe('demo-admin');
    expect(after.contacts).toEqual(contacts);
  });
});

import { describe, expect, it } from 'vitest';
import { handler } from '../functions/transfer/handler.ts';
import { startServer } from '../infra/local/server.ts';
import { getDomain } from '../shared/db/repositories/domains.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { putProvider } from '../shared/db/repositories/providers.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { listDueZones } from '../shared/db/repositories/zone-premium.ts';
import { premiumPaidUntil } from '../shared/model/zone.ts';
import { apiEvent, call, invoke, limitedKey, otherKey } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';
import { demoBody, poll, processesOf, sandboxDomain, transfer } from './support/transfer.ts';

const wire = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const key257 = 'RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPLGh1eikgv7PuELQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==';

function errorBody(res: { headers: Record<string, string> }, body: Record<string, unknown>) {
  return { ...body, requestId: res.headers['x-request-id'] };
}

describe('POST /v2/domains/{domainName}/transfer?quote=true', () => {
  it('answers the quote and the plan for transfer-now.nl and changes nothing', async () => {
    const res = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' }, { quote: true });
    expect(res.status).toBe(200);
    expect(res.headers['x-process-id']).toBeUndefined();
    expect(res.body).toEqual({
      command: 'DomainTransfer',
      quote: {
        total: 449,
        currency: 'EUR',
        billables: [
          { product: 'domain_nl', action: 'TRANSFER', quantity: 1, amount: 449, providerName: 'sidn', refundable: true, total: 449 },
        ],
      },
      plan: {
        periodMonths: 12,
        expiry: { before: '2027-02-14T10:00:00Z', after: '2028-02-14T10:00:00Z' },
        nameServers: {
          change: 'kept',
          before: ['ns1.previous-host.example', 'ns2.previous-host.example'],
          after: ['ns1.previous-host.example', 'ns2.previous-host.example'],
        },
        dnssec: {
          change: 'kept',
          before: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key257 }],
          after: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key257 }],
        },
        zone: { change: 'untouched', exists: false },
        contacts: { registrant: 'demo-registrant', contacts: [] },
        privacyProtect: false,
        autoRenew: true,
        designatedAgent: { requested: 'NONE', applied: 'NONE' },
      },
    });
    expect(await readDomainCollection('transfer-now.nl')).toEqual({});
  });

  it('quotes PRIVACY_PROTECT when enabled and priced, per year, with the plan showing every change', async () => {
    const res = await transfer(
      'transfer-wait.com',
      {
        ...demoBody,
        authcode: 'COM-TRANSFER-2026',
        privacyProtect: true,
        autoRenew: false,
        ns: ['NS1.New-Host.example', 'ns2.new-host.example'],
        keyData: [
          {
            protocol: 3,
            flags: 257,
            algorithm: 13,
            publicKey: 'RC0/0l+nLyCv7xZu9zFztbZ1V+sKoNPL Gh1eikgv7PuELQkmCYlp7SKAIjVGqAiaCj1CsH47PaEiCIdnKpeQnQ==',
          },
        ],
        contacts: [
          { role: 'ADMIN', handle: 'demo-admin' },
          { role: 'TECH', handle: 'demo-tech' },
        ],
        zone: { service: 'BASIC' },
      },
      { quote: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.quote).toEqual({
      total: 1299,
      currency: 'EUR',
      billables: [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
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
    });
    expect(res.body.plan).toEqual({
      periodMonths: 12,
      expiry: { before: '2027-04-02T08:30:00Z', after: '2028-04-02T08:30:00Z' },
      nameServers: {
        change: 'replaced',
        before: ['ns1.previous-host.example', 'ns2.previous-host.example'],
        after: ['ns1.new-host.example', 'ns2.new-host.example'],
      },
      dnssec: { change: 'replaced', before: [], after: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key257 }] },
      zone: { change: 'converted', exists: true, service: 'BASIC', dnssec: false },
      contacts: {
        registrant: 'demo-registrant',
        contacts: [
          { role: 'ADMIN', handle: 'demo-admin' },
          { role: 'TECH', handle: 'demo-tech' },
        ],
      },
      privacyProtect: true,
      autoRenew: false,
      designatedAgent: { requested: 'NONE', applied: 'NONE' },
    });
  });

  it('quotes in the account currency of another customer, whose privacy setting is the default', async () => {
    await sandboxDomain('other-quote.com');
    const res = await transfer(
      'other-quote.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE', ns: [] },
      { quote: true, key: otherKey },
    );
    expect(res.status).toBe(200);
    expect(res.body.quote).toEqual({
      total: 1498,
      currency: 'USD',
      billables: [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1199, providerName: 'verisign', refundable: true, total: 1199 },
        {
          product: 'domain_com',
          action: 'PRIVACY_PROTECT',
          quantity: 1,
          amount: 299,
          providerName: 'verisign',
          refundable: true,
          total: 299,
        },
      ],
    });
    expect(res.body.plan.nameServers).toEqual({ change: 'removed', before: ['ns1.old.example', 'ns2.old.example'], after: [] });
    expect(res.body.plan.privacyProtect).toBe(true);
  });

  it('finds the registry by the longest extension: transfer-tag.co.uk is domain_co.uk at nominet, free, without auth code', async () => {
    const res = await transfer('transfer-tag.co.uk', demoBody, { quote: true });
    expect(res.status).toBe(200);
    expect(res.body.command).toBe('DomainTransfer');
    expect(res.body.quote).toEqual({ total: 0 });
    expect(res.body.plan.expiry).toEqual({ before: '2027-05-30T00:00:00Z', after: '2028-05-30T00:00:00Z' });
  });

  it('plans a new linked zone from a template, and refuses zone values that contradict an existing zone', async () => {
    await sandboxDomain('zone-plan.com');
    const created = await transfer(
      'zone-plan.com',
      { ...demoBody, authcode: 'TEST-CODE', zone: { template: 'demo-template', master: '2a00:1450:4001::53', dnssec: true } },
      { quote: true },
    );
    expect(created.body.plan.zone).toEqual({
      change: 'created',
      exists: false,
      service: 'BASIC',
      template: 'demo-template',
      link: true,
      master: '2a00:1450:4001::53',
      dnssec: true,
    });

    const mismatch = await transfer(
      'transfer-wait.com',
      { ...demoBody, authcode: 'COM-TRANSFER-2026', zone: { service: 'PREMIUM', template: 'demo-template', dnssec: false } },
      { quote: true },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual(
      errorBody(mismatch, {
        type: 'ValidationError',
        message: 'The zone values do not match the existing zone of this domain.',
        violations: [
          {
            field: 'zone.service',
            message: 'does not match the existing zone of this domain (BASIC); leave it empty or give that value',
            value: 'PREMIUM',
          },
          {
            field: 'zone.template',
            message: 'does not match the existing zone of this domain (not set); leave it empty or give that value',
            value: 'demo-template',
          },
        ],
      }),
    );
  });

  it('records what is applied of designatedAgent: BOTH acts as NEW, OLD is ignored, and so is any value where the registry allows none or the registrant must act', async () => {
    const plan = async (domain: string, authcode: string | undefined, designatedAgent: string) =>
      (await transfer(domain, { ...demoBody, ...(authcode ? { authcode } : {}), designatedAgent }, { quote: true })).body.plan
        .designatedAgent;
    expect(await plan('transfer-wait.com', 'COM-TRANSFER-2026', 'BOTH')).toEqual({
      requested: 'BOTH',
      applied: 'NEW',
      note: 'BOTH acts as NEW on a transfer-in',
    });
    expect(await plan('transfer-wait.com', 'COM-TRANSFER-2026', 'NEW')).toEqual({ requested: 'NEW', applied: 'NEW' });
    expect(await plan('transfer-wait.com', 'COM-TRANSFER-2026', 'OLD')).toEqual({
      requested: 'OLD',
      applied: 'NONE',
      note: 'ignored: acting for the old registrant is impossible on a transfer-in',
    });
    expect(await plan('transfer-now.nl', 'NL-TRANSFER-2026', 'NEW')).toEqual({
      requested: 'NEW',
      applied: 'NONE',
      note: 'ignored: the registry allows no designated agent',
    });
    expect(await plan('transfer-foa.net', 'NET-TRANSFER-2026', 'NEW')).toEqual({
      requested: 'NEW',
      applied: 'NONE',
      note: 'ignored: interaction with the registrant is still required',
    });
  });
});

describe('POST /v2/domains/{domainName}/transfer: validation', () => {
  it('lists every schema violation of spec 2.1-2.5 and 8 in one 400 with field paths', async () => {
    const res = await transfer('transfer-wait.com', {
      customer: 'de mo',
      registrant: 'x',
      privacyProtect: 'yes',
      period: 0,
      authcode: 'A'.repeat(65),
      ns: ['ns1.ok.example', 'not a host', 'a.b'],
      designatedAgent: 'SOMEONE',
      zone: { service: 'GOLD', template: 'no spaces allowed', master: '300.1.1.1' },
      contacts: [{ role: 'OWNER', handle: 'demo-admin' }],
      keyData: [{ protocol: 4, flags: 300, algorithm: 99, publicKey: 'not base64!' }],
      billables: [{ product: 'domain_com', action: 'BUY', quantity: 0 }],
      transferContacts: ['TECH'],
      languageCode: 'not a language',
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.violations.map((violation: { field: string }) => violation.field)).toEqual([
      'customer',
      'registrant',
      'privacyProtect',
      'period',
      'authcode',
      'ns[1]',
      'ns[2]',
      'ns[2]',
      'designatedAgent',
      'zone.service',
      'zone.template',
      'zone.master',
      'contacts[0].role',
      'keyData[0].protocol',
      'keyData[0].flags',
      'keyData[0].algorithm',
      'keyData[0].publicKey',
      'billables[0].action',
      'billables[0].quantity',
      'transferContacts[0]',
      'languageCode',
    ]);
    expect(res.body.violations).toContainEqual({ field: 'zone.master', message: 'must be an IPv4 or IPv6 address', value: '300.1.1.1' });
    expect(res.body.violations).toContainEqual({ field: 'authcode', message: 'must be at most 64 characters long' });
    expect(res.body.violations).toContainEqual({ field: 'ns[2]', message: 'must be 4 to 255 characters long', value: 'a.b' });
  });

  it('limits ns to 10 distinct items and refuses a path domain name that breaks the pattern', async () => {
    const ns = Array.from({ length: 11 }, (_, i) => `ns${i}.example.com`);
    const res = await transfer('-bad-.com', { ...demoBody, ns });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([
      { field: 'domainName', message: 'is not a valid domain name (lower-case, punycode for IDN)', value: '-bad-.com' },
      { field: 'ns', message: 'must have at most 10 items' },
    ]);
    const twice = await transfer('transfer-wait.com', { ...demoBody, ns: ['ns1.example.com', 'NS1.example.com'] });
    expect(twice.body.violations).toEqual([{ field: 'ns', message: 'must not list a name server twice' }]);
  });

  it('requires customer and registrant, and refuses unknown properties, nested ones too', async () => {
    const missing = await transfer('transfer-wait.com', {});
    expect(missing.body.violations).toEqual([
      { field: 'customer', message: 'is required' },
      { field: 'registrant', message: 'is required' },
    ]);
    const unknown = await transfer('transfer-wait.com', { ...demoBody, zone: { service: 'BASIC', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(
      errorBody(unknown, {
        type: 'UnrecognizedPropertyException',
        message: "Unrecognized property 'zone.colour'.",
        property: 'zone.colour',
      }),
    );
  });

  it('accepts transferContacts and languageCode and records them on the process', async () => {
    await sandboxDomain('extras.com', { transfer: { stages: [], outcome: 'completed' } });
    const res = await transfer('extras.com', {
      ...demoBody,
      authcode: 'TEST-CODE',
      transferContacts: ['REGISTRANT', 'ADMIN'],
      languageCode: 'de',
    });
    expect(res.status).toBe(200);
    const process = await getProcess(res.body.processId, 'demo');
    expect(process?.details).toMatchObject({ transferContacts: ['REGISTRANT', 'ADMIN'], languageCode: 'de' });
  });

  it('applies the registry rules: period, DNSSEC algorithms and count, all in one ValidationError', async () => {
    const keyData = Array.from({ length: 5 }, () => ({ protocol: 3, flags: 257, algorithm: 13, publicKey: key257 }));
    keyData[1] = { protocol: 3, flags: 256, algorithm: 5, publicKey: key257 };
    const res = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026', period: 24, keyData });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ValidationError',
        message: 'The request breaks the transfer rules of sidn.',
        violations: [
          { field: 'period', message: 'must be one of 12 (months) at sidn', value: 24 },
          { field: 'keyData[1].algorithm', message: 'is not supported at sidn; use one of 8, 10, 13, 14, 15, 16', value: 5 },
          { field: 'keyData', message: 'must have at most 4 items at sidn' },
        ],
      }),
    );
  });

  it('requires the auth code where the registry does, refuses it where the registry has none', async () => {
    const required = await transfer('transfer-wait.com', demoBody);
    expect(required.status).toBe(400);
    expect(required.body).toEqual(
      errorBody(required, {
        type: 'ValidationError',
        message: 'The request breaks the transfer rules of verisign.',
        violations: [{ field: 'authcode', message: 'is required for a transfer at verisign' }],
      }),
    );
    const refused = await transfer('transfer-tag.co.uk', { ...demoBody, authcode: 'ANYTHING' });
    expect(refused.body.violations).toEqual([{ field: 'authcode', message: 'is not used for transfers at nominet; leave it out' }]);
  });

  it('answers 400 ValidationError on authcode for a wrong auth code, never echoing it', async () => {
    const res = await transfer('transfer-wait.com', { ...demoBody, authcode: 'WRONG-CODE' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ValidationError',
        message: 'The auth code is not valid for this domain.',
        violations: [{ field: 'authcode', message: 'is not valid for this domain' }],
      }),
    );
    expect(res.raw).not.toContain('WRONG-CODE');
  });

  it('answers 400 ObjectDoesNotExist for a domain the registry does not know', async () => {
    const res = await transfer('never-registered.com', { ...demoBody, authcode: 'X' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ObjectDoesNotExist',
        message: "Domain 'never-registered.com' does not exist.",
        objectType: 'Domain',
        identifier: 'never-registered.com',
      }),
    );
  });

  it('answers 400 for a domain whose extension no registry serves', async () => {
    const res = await transfer('example.org', demoBody);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ValidationError',
        message: 'No registry serves the extension of example.org.',
        violations: [{ field: 'domainName', message: 'has an extension no registry serves', value: 'example.org' }],
      }),
    );
  });

  it('answers 400 ObjectStatusProhibitsOperation for transfer-locked.com', async () => {
    const res = await transfer('transfer-locked.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ObjectStatusProhibitsOperation',
        message: 'The registry refuses to transfer transfer-locked.com: its status prohibits it.',
      }),
    );
  });

  it('answers 403 for another customer in the body', async () => {
    const res = await transfer('transfer-wait.com', { customer: 'other', registrant: 'other-registrant', authcode: 'COM-TRANSFER-2026' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorBody(res, { type: 'AuthorizationError', message: "Customer 'other' is not your account." }));
  });

  it('answers 403 for designatedAgent other than NONE without the permission, even where it would be ignored', async () => {
    for (const [domain, authcode] of [
      ['transfer-wait.com', 'COM-TRANSFER-2026'],
      ['transfer-now.nl', 'NL-TRANSFER-2026'],
    ] as const) {
      const res = await transfer(domain, { ...demoBody, authcode, designatedAgent: 'OLD' }, { key: limitedKey });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        errorBody(res, { type: 'AuthorizationError', message: 'designatedAgent OLD requires the DESIGNATED_AGENT permission.' }),
      );
    }
    const none = await transfer(
      'transfer-wait.com',
      { ...demoBody, authcode: 'COM-TRANSFER-2026', designatedAgent: 'NONE' },
      { key: limitedKey, quote: true },
    );
    expect(none.status).toBe(200);
  });

  it('answers 400 ObjectDoesNotExist for a registrant, contact or template the account does not have', async () => {
    const registrant = await transfer('transfer-wait.com', {
      customer: 'demo',
      registrant: 'other-registrant',
      authcode: 'COM-TRANSFER-2026',
    });
    expect(registrant.status).toBe(400);
    expect(registrant.body).toEqual(
      errorBody(registrant, {
        type: 'ObjectDoesNotExist',
        message: "Contact 'other-registrant' does not exist.",
        objectType: 'Contact',
        identifier: 'other-registrant',
      }),
    );
    const contact = await transfer('transfer-wait.com', {
      ...demoBody,
      authcode: 'COM-TRANSFER-2026',
      contacts: [{ role: 'TECH', handle: 'nobody-here' }],
    });
    expect(contact.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Contact', identifier: 'nobody-here' });
    const template = await transfer('transfer-wait.com', {
      ...demoBody,
      authcode: 'COM-TRANSFER-2026',
      zone: { template: 'no-such-template' },
    });
    expect(template.status).toBe(400);
    expect(template.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Template', identifier: 'no-such-template' });
  });

  it('refuses a period that would put the expiry more than ten years ahead', async () => {
    const far = new Date(Date.now() + 9.5 * 365 * 86400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await sandboxDomain('far-expiry.com', { expiryDate: far });
    const res = await transfer('far-expiry.com', { ...demoBody, authcode: 'TEST-CODE' }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.violations).toEqual([
      { field: 'period', message: expect.stringMatching(/^would put the expiry \(.+\) more than 10 years ahead$/), value: 12 },
    ]);
  });

  it('refuses a domain the account cannot buy a transfer of (no TRANSFER price)', async () => {
    await putProvider({
      kind: 'REGISTRY',
      name: 'testreg',
      metadata: { possibleDomainExtensions: ['example'], transferSupportsAuthcode: false },
    });
    await sandboxDomain('unpriced.example', { registry: 'testreg', authcode: undefined });
    const res = await transfer('unpriced.example', demoBody, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody(res, {
        type: 'ValidationError',
        message: 'unpriced.example cannot be transferred into this account: its price list has no TRANSFER price for domain_example.',
        violations: [
          {
            field: 'domainName',
            message: "has no TRANSFER price (domain_example) on this account's price list",
            value: 'unpriced.example',
          },
        ],
      }),
    );
  });
});

describe('POST /v2/domains/{domainName}/transfer: the transfer', () => {
  it('completes transfer-now.nl at once: 200 with expiryDate, x-process-id, a process with its billables, the domain in the account', async () => {
    const res = await transfer('transfer-now.nl', {
      ...demoBody,
      authcode: 'NL-TRANSFER-2026',
      contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
    });
    expect(res.status).toBe(200);
    const id = Number(res.headers['x-process-id']);
    expect(id).toBeGreaterThan(1000);
    expect(res.body).toEqual({
      domainName: 'transfer-now.nl',
      status: 'completed',
      requestedDate: expect.stringMatching(wire),
      expiryDate: '2028-02-14T10:00:00Z',
      type: 'IN',
      processId: id,
    });
    const process = await getProcess(id, 'demo');
    expect(process).toMatchObject({
      id,
      customer: 'demo',
      user: 'alice',
      type: 'domain',
      action: 'transfer',
      identifier: 'transfer-now.nl',
      status: 'COMPLETED',
      billables: [
        { product: 'domain_nl', action: 'TRANSFER', quantity: 1, amount: 449, providerName: 'sidn', refundable: true, total: 449 },
      ],
    });
    expect(process?.details).toMatchObject({ status: 'completed', history: [{ status: 'completed', date: res.body.requestedDate }] });
    expect(await getDomain('transfer-now.nl')).toEqual({
      domainName: 'transfer-now.nl',
      customer: 'demo',
      registry: 'sidn',
      registrant: 'demo-registrant',
      contacts: [{ role: 'ADMIN', handle: 'demo-admin' }],
      ns: ['ns1.previous-host.example', 'ns2.previous-host.example'],
      keyData: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key257 }],
      privacyProtect: false,
      autoRenew: true,
      autoRenewPeriod: 12,
      premium: false,
      status: ['OK'],
      createdDate: res.body.requestedDate,
      updatedDate: res.body.requestedDate,
      expiryDate: '2028-02-14T10:00:00Z',
    });
    // The name is free again at our side: no pending state left.
    expect((await readDomainCollection('transfer-now.nl')).lock).toBeUndefined();

    const again = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(errorBody(again, { type: 'ObjectExists', message: 'transfer-now.nl is already in your account.' }));
    const byOther = await transfer(
      'transfer-now.nl',
      { customer: 'other', registrant: 'other-registrant', authcode: 'NL-TRANSFER-2026' },
      { key: otherKey },
    );
    expect(byOther.body.type).toBe('ObjectStatusProhibitsOperation');
  });

  it('answers 202 with actionDate five days ahead for transfer-wait.com, and refuses a second transfer of it by anyone', async () => {
    const res = await transfer('transfer-wait.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      domainName: 'transfer-wait.com',
      status: 'pending',
      requestedDate: expect.stringMatching(wire),
      actionDate: new Date(new Date(res.body.requestedDate).getTime() + 5 * 86400_000).toISOString().replace('.000Z', 'Z'),
      type: 'IN',
      processId: Number(res.headers['x-process-id']),
    });
    for (const key of [undefined, otherKey]) {
      const body = key
        ? { customer: 'other', registrant: 'other-registrant', authcode: 'COM-TRANSFER-2026' }
        : { ...demoBody, authcode: 'COM-TRANSFER-2026' };
      const second = await transfer('transfer-wait.com', body, key ? { key } : {});
      expect(second.status).toBe(400);
      // The owner is told its transfer is pending; another customer gets the registry-lock wording (nothing leaks).
      const message = key
        ? 'The registry refuses to transfer transfer-wait.com: its status prohibits it.'
        : 'A transfer of transfer-wait.com is already pending.';
      expect(second.body).toEqual(errorBody(second, { type: 'ObjectStatusProhibitsOperation', message }));
    }
  });

  it('refuses transfer-premium.com without acknowledgment, carrying the quote, and accepts the echoed billables', async () => {
    const body = { ...demoBody, authcode: 'COM-TRANSFER-2026' };
    const refused = await transfer('transfer-premium.com', body);
    const quote = {
      total: 45000,
      currency: 'EUR',
      billables: [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 45000, providerName: 'verisign', refundable: true, total: 45000 },
      ],
    };
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      errorBody(refused, {
        type: 'BillableAcknowledgmentNeededException',
        message: 'This request has charges that need acknowledgment: send the quoted billables back in `billables`.',
        quote,
      }),
    );
    expect(await readDomainCollection('transfer-premium.com')).toEqual({});

    const quoted = await transfer('transfer-premium.com', body, { quote: true });
    expect(quoted.body.quote).toEqual(quote);
    const wrongAction = await transfer('transfer-premium.com', { ...body, billables: [{ product: 'domain_com', action: 'RENEW' }] });
    expect(wrongAction.body.type).toBe('BillableAcknowledgmentNeededException');

    const accepted = await transfer('transfer-premium.com', { ...body, billables: quoted.body.quote.billables });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('completed');
    expect((await getProcess(accepted.body.processId, 'demo'))?.billables).toEqual(quote.billables);
  });

  it('lets exactly one of 20 concurrent transfers of a domain through, creating one process', async () => {
    await sandboxDomain('race.com');
    const before = (await processesOf('demo')).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => transfer('race.com', { ...demoBody, authcode: 'TEST-CODE' })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, ...Array(19).fill(400)]);
    for (const a of answers.filter((x) => x.status === 400)) {
      expect(a.body.type).toBe('ObjectStatusProhibitsOperation');
    }
    const processes = (await processesOf('demo')).filter((p) => p.identifier === 'race.com');
    expect(processes).toHaveLength(1);
    expect((await processesOf('demo')).length).toBe(before + 1);
    const winner = answers.find((a) => a.status === 202);
    expect(processes[0]?.id).toBe(winner?.body.processId);
    expect((await readDomainCollection('race.com')).lock).toMatchObject({ processId: winner?.body.processId, status: 'pending' });
  });

  it('lets exactly one of 20 concurrent transfers of an at-once domain through; the others see it in the account', async () => {
    await sandboxDomain('race-now.com', { transfer: { stages: [], outcome: 'completed' } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => transfer('race-now.com', { ...demoBody, authcode: 'TEST-CODE' })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(['ObjectStatusProhibitsOperation', 'ObjectExists']).toContain(a.body.type);
    }
    expect((await processesOf('demo')).filter((p) => p.identifier === 'race-now.com')).toHaveLength(1);
  });
});

describe('POST /v2/domains/{domainName}/transfer: a PREMIUM zone', () => {
  it('charges the PREMIUM zone it provisions (dns_premium CREATE) with the transfer, once per Idempotency-Key; a BASIC one is free', async () => {
    await sandboxDomain('zone-premium-now.com', { transfer: { stages: [], outcome: 'completed' } });
    const body = { ...demoBody, authcode: 'TEST-CODE', zone: { service: 'PREMIUM' } };
    const quote = await transfer('zone-premium-now.com', body, { quote: true });
    expect(quote.body.quote.billables).toEqual([
      expect.objectContaining({ product: 'domain_com', action: 'TRANSFER' }),
      { product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 300, providerName: 'dns', refundable: true, total: 300 },
    ]);
    const basic = await transfer('zone-premium-now.com', { ...body, zone: { service: 'BASIC' } }, { quote: true });
    expect(basic.body.quote.billables.map((b: { product: string }) => b.product)).toEqual(['domain_com']);
    const headers = { 'Idempotency-Key': 'transfer-zone-premium' };
    const first = await transfer('zone-premium-now.com', body, { headers });
    expect(first.status).toBe(200);
    const retry = await transfer('zone-premium-now.com', body, { headers });
    expect(retry.headers['x-process-id']).toBe(first.headers['x-process-id']);
    const processes = (await processesOf('demo')).filter((p) => p.identifier === 'zone-premium-now.com');
    expect(processes.map((p) => p.billables.map((b) => `${b.product} ${b.action} ${b.total}`))).toEqual([
      [`domain_com TRANSFER ${quote.body.quote.billables[0].total}`, 'dns_premium CREATE 300'],
    ]);
    const { zone } = await readDomainCollection('zone-premium-now.com');
    expect(zone).toMatchObject({ service: 'PREMIUM', managed: true, paidUntil: premiumPaidUntil(zone?.createdDate as string) });
  });

  it('makes PREMIUM, on completion, the plain zone the caller made of the name while the paid transfer waited', async () => {
    await sandboxDomain('zone-premium-later.com', { transfer: { stages: [{ status: 'pending', seconds: 60 }], outcome: 'completed' } });
    const res = await transfer('zone-premium-later.com', { ...demoBody, authcode: 'TEST-CODE', zone: { service: 'PREMIUM' } });
    expect(res.status).toBe(202);
    const made = await call('POST', '/v2/dns/zones', { body: { name: 'zone-premium-later.com' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await poll(new Date(Date.now() + 120_000));
    expect((await getProcess(Number(res.headers['x-process-id']), 'demo'))?.status).toBe('COMPLETED');
    const { zone } = await readDomainCollection('zone-premium-later.com');
    expect(zone).toMatchObject({ id: made.body.id, managed: true, service: 'PREMIUM' });
    expect(zone?.paidUntil).toBe(premiumPaidUntil(zone?.updatedDate as string));
    expect((await listDueZones(zone?.paidUntil as string, 1000)).due).toContainEqual({
      domainName: 'zone-premium-later.com',
      dueDate: zone?.paidUntil,
    });
  });

  it('refunds the PREMIUM zone with the transfer when the registry rejects it, and refuses an unacknowledged stale price', async () => {
    await sandboxDomain('zone-premium-rejected.com', { transfer: { stages: [{ status: 'pending', seconds: 60 }], outcome: 'rejected' } });
    const body = { ...demoBody, authcode: 'TEST-CODE', zone: { service: 'PREMIUM' } };
    const stale = await transfer('zone-premium-rejected.com', {
      ...body,
      billables: [{ product: 'dns_premium', action: 'CREATE', quantity: 1, amount: 299 }],
    });
    expect(stale.status).toBe(400);
    expect(stale.body.type).toBe('BillableAcknowledgmentNeededException');
    expect(stale.body.quote.billables.map((b: { product: string }) => b.product)).toEqual(['domain_com', 'dns_premium']);
    const res = await transfer('zone-premium-rejected.com', body);
    expect(res.status).toBe(202);
    await poll(new Date(Date.now() + 120_000));
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.status).toBe('FAILED');
    expect(process?.billables.map((b) => b.product)).toEqual(['domain_com', 'dns_premium']);
    expect(process?.refund).toEqual({ EUR: (process?.billables ?? []).reduce((sum, b) => sum + b.total, 0) });
    expect((await readDomainCollection('zone-premium-rejected.com')).zone).toBeUndefined();
  });
});

describe('POST /v2/domains/{domainName}/transfer: Idempotency-Key', () => {
  it('replays the first answer for a retry and creates nothing new', async () => {
    await sandboxDomain('idem-once.com');
    const headers = { 'Idempotency-Key': 'c6a3f0de-1f59-4c4e-9a31-0d1c5c1b7a01' };
    const body = { ...demoBody, authcode: 'TEST-CODE' };
    const first = await transfer('idem-once.com', body, { headers });
    const retry = await transfer('idem-once.com', body, { headers });
    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['x-process-id']).toBe(first.headers['x-process-id']);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect((await processesOf('demo')).filter((p) => p.identifier === 'idem-once.com')).toHaveLength(1);
  });

  it('refuses the same key with a different body with 400', async () => {
    await sandboxDomain('idem-mismatch.com');
    const headers = { 'Idempotency-Key': 'key-for-mismatch' };
    await transfer('idem-mismatch.com', { ...demoBody, authcode: 'TEST-CODE' }, { headers });
    const other = await transfer('idem-mismatch.com', { ...demoBody, authcode: 'TEST-CODE', autoRenew: false }, { headers });
    expect(other.status).toBe(400);
    expect(other.body).toEqual(
      errorBody(other, {
        type: 'ValidationError',
        message: 'This Idempotency-Key was already used with a different request.',
        violations: [{ field: 'Idempotency-Key', message: 'was already used with a different request' }],
      }),
    );
  });

  it('ends concurrent retries with one key with one process and identical answers', async () => {
    await sandboxDomain('idem-race.com');
    const headers = { 'Idempotency-Key': 'key-for-the-race' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => transfer('idem-race.com', { ...demoBody, authcode: 'TEST-CODE' }, { headers })),
    );
    for (const a of answers) {
      expect(a.status).toBe(202);
      expect(a.body).toEqual(answers[0]?.body);
      expect(a.headers['x-process-id']).toBe(String(answers[0]?.body.processId));
    }
    expect((await processesOf('demo')).filter((p) => p.identifier === 'idem-race.com')).toHaveLength(1);
  });

  it('does not store a failed attempt, so a corrected retry with the same body succeeds later', async () => {
    await sandboxDomain('idem-later.com', { statuses: ['clientTransferProhibited'] });
    const headers = { 'Idempotency-Key': 'key-after-unlock' };
    const body = { ...demoBody, authcode: 'TEST-CODE' };
    const locked = await transfer('idem-later.com', body, { headers });
    expect(locked.body.type).toBe('ObjectStatusProhibitsOperation');
    await sandboxDomain('idem-later.com');
    const unlocked = await transfer('idem-later.com', body, { headers });
    expect(unlocked.status).toBe(202);
  });
});

describe('POST /v2/domains/{domainName}/transfer: other ways in', () => {
  it('works through the handler directly with an API Gateway event', async () => {
    await sandboxDomain('direct.com');
    const res = await invoke(
      handler,
      apiEvent({
        method: 'POST',
        path: '/v2/domains/direct.com/transfer',
        resource: '/v2/domains/{domainName}/transfer',
        pathParameters: { domainName: 'direct.com' },
        query: { quote: 'TRUE' },
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...demoBody, authcode: 'TEST-CODE' }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.quote.total).toBe(1049);
  });

  it('works over HTTP through the local server, upper-case domain names included', async () => {
    await sandboxDomain('over-http.com', { transfer: { stages: [], outcome: 'completed' } });
    const server = await startServer({ port: 0 });
    try {
      const res = await fetch(`${server.url}/v2/domains/Over-HTTP.com/transfer`, {
        method: 'POST',
        headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...demoBody, authcode: 'TEST-CODE' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.headers.get('x-process-id')).toBe(String(body.processId));
      expect(body).toMatchObject({ domainName: 'over-http.com', status: 'completed', type: 'IN', expiryDate: '2028-06-15T12:00:00Z' });
    } finally {
      await server.close();
    }
  });

  it('answers 401 without an API key and 415 for a body that is not JSON', async () => {
    expect((await transfer('transfer-wait.com', demoBody, { key: null })).status).toBe(401);
    const res = await call('POST', '/v2/domains/transfer-wait.com/transfer', {
      body: 'customer=demo',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });
});

describe('POST /v2/domains/{domainName}/transfer: bounded reads', () => {
  /**
   * The registry extensions the request looked up (`EXTENSION#` keys it asked the table for,
   * counted at the SDK client), and its status. Only these: the other reads (the account, the
   * price list, the rates) depend on caches whose expiry a long test file may cross.
   */
  async function extensionLookups(domainName: string): Promise<{ status: number; extensions: string[] }> {
    const body = { customer: 'demo', registrant: 'demo-registrant', authcode: 'NL-TRANSFER-2026' };
    const { result, details } = await recordTableCalls(() => transfer(domainName, body, { quote: true }));
    const extensions = details.flatMap((d) => d.partitions.filter((p) => p.startsWith('EXTENSION#')));
    return { status: result.status, extensions };
  }

  it('looks up at most 4 extensions for the registry, however deep the name', async () => {
    const deep = `${'a.'.repeat(120)}nl`;
    const fourDeep = 'a.a.a.a.nl';
    expect(deep.length).toBeLessThanOrEqual(253);
    const [deepRead, fourRead] = [await extensionLookups(deep), await extensionLookups(fourDeep)];
    expect(fourRead.status).toBe(400);
    expect(fourRead.extensions).toHaveLength(4);
    expect(deepRead).toEqual(fourRead);
  });
});

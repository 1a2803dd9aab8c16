import { describe, expect, it } from 'vitest';
import { handler as authorizer } from '../functions/authorizer/handler.ts';
import { call } from './support/api.ts';
import { changedKeys, snapshotTable } from './support/table-writes.ts';
import { sandboxDomain } from './support/transfer.ts';

/**
 * HTTP and JSON as clients expect them: the ApiKey scheme in any case (RFC 9110), a body with a
 * key given twice refused, internationalized names in their A-label form (UTS #46), and an
 * acknowledged amount below the price now quoted refused with the new quote.
 */

const json = { 'Content-Type': 'application/json' };

describe('a JSON body with a key given twice in one object', () => {
  it('is refused with 400 InvalidMessage, at any depth and however the key is escaped, and nothing is written', async () => {
    await sandboxDomain('dup-keys.com');
    const before = await snapshotTable();
    for (const [body, key] of [
      ['{"customer":"demo","customer":"other","registrant":"demo-registrant"}', 'customer'],
      ['{"customer":"demo","registrant":"demo-registrant","zone":{"service":"BASIC","service":"PREMIUM"}}', 'service'],
      ['{"customer":"demo","\\u0063ustomer":"other","registrant":"demo-registrant"}', 'customer'],
      ['{"customer":"demo","registrant":"demo-registrant","contacts":[{"role":"ADMIN","handle":"demo-admin","handle":"x"}]}', 'handle'],
    ] as const) {
      const res = await call('POST', '/v2/domains/dup-keys.com/transfer', { body, headers: json });
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({
        type: 'InvalidMessage',
        message: `The request body gives the key "${key}" more than once in one object.`,
        requestId: res.headers['x-request-id'],
      });
    }
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
  });

  it('accepts the same key in different objects, and a key-like text inside a string', async () => {
    await sandboxDomain('dup-keys-fine.com', { authcode: '"customer": 1' });
    const body =
      '{"customer":"demo","registrant":"demo-registrant","authcode":"\\"customer\\": 1","contacts":[{"role":"ADMIN","handle":"demo-admin"},{"role":"TECH","handle":"demo-admin"}]}';
    const res = await call('POST', '/v2/domains/dup-keys-fine.com/transfer?quote=true', { body, headers: json });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.command).toBe('DomainTransfer');
  });
});

describe('the ApiKey scheme in any case (RFC 9110 11.1)', () => {
  it('authenticates `apikey`, `APIKEY` and `ApiKey` followed by one or more spaces, in the gateway and the authorizer', async () => {
    for (const authorization of ['apikey demo-key', 'APIKEY demo-key', 'aPiKeY demo-key', 'ApiKey   demo-key']) {
      const res = await call('GET', '/v2/providers/sidn', { headers: { Authorization: authorization } });
      expect(res.status, authorization).toBe(200);
      const grant = await authorizer({
        type: 'TOKEN',
        authorizationToken: authorization,
        methodArn: 'arn:aws:execute-api:eu-west-1:1:api/sandbox/GET/v2/x',
      });
      expect(grant.principalId).toBe('demo/alice');
    }
    for (const authorization of ['Bearer demo-key', 'ApiKeydemo-key', 'Api-Key demo-key', 'apikey']) {
      const res = await call('GET', '/v2/providers/sidn', { headers: { Authorization: authorization } });
      expect(res.status, authorization).toBe(401);
    }
  });
});

describe('internationalized domain names (UTS #46)', () => {
  const uLabel = 'münchen-shop.com';
  const aLabel = 'xn--mnchen-shop-thb.com';

  it('converts a U-label, raw or percent-encoded, to its A-label, as the registry takes it', async () => {
    await sandboxDomain(aLabel, { transfer: { stages: [{ status: 'pendingfoa', seconds: 86_400 }], outcome: 'completed' } });
    const started = await call('POST', `/v2/domains/${encodeURIComponent(uLabel)}/transfer`, {
      body: { customer: 'demo', registrant: 'demo-registrant', authcode: 'TEST-CODE' },
    });
    expect(started.status, started.raw).toBe(202);
    expect(started.body.domainName).toBe(aLabel);
    for (const name of [uLabel, encodeURIComponent(uLabel), 'MÜNCHEN-SHOP.com', aLabel, aLabel.toUpperCase()]) {
      const latest = await call('GET', `/v2/domains/${name}/transfer`);
      expect(latest.status, name).toBe(200);
      expect(latest.body).toMatchObject({ domainName: aLabel, processId: started.body.processId });
    }
  });

  it('refuses an xn-- label that is not valid punycode with 400, not 404', async () => {
    for (const name of ['xn--zz.nl', 'xn--a.com', 'shop.xn--.com', '%E0%A4%A.nl', 'm%C3%BC%09nchen-shop.com']) {
      const res = await call('GET', `/v2/domains/${name}/zone`);
      expect(res.status, name).toBe(400);
      expect(res.body).toMatchObject({ type: 'ConstraintViolationException', violations: [{ field: 'domainName' }] });
    }
    // A valid A-label of a name nobody holds is a 404, as before.
    expect((await call('GET', '/v2/domains/xn--mnchen-3ya.nl/zone')).status).toBe(404);
  });
});

describe('an acknowledged amount below the price now quoted', () => {
  it('is refused with the new quote, so a price that rose after the quote is never charged silently', async () => {
    const name = `premium-rise-${process.pid}.com`;
    await sandboxDomain(name, { premium: { currency: 'EUR', amount: 50_000 } });
    const body = { customer: 'demo', registrant: 'demo-registrant', authcode: 'TEST-CODE' };
    const quoted = await call('POST', `/v2/domains/${name}/transfer?quote=true`, { body });
    expect(quoted.status).toBe(200);
    const oldBillables = quoted.body.quote.billables;
    // The registry raises the premium price between the quote and the order.
    await sandboxDomain(name, { premium: { currency: 'EUR', amount: 60_000 } });
    const before = await snapshotTable();
    const refused = await call('POST', `/v2/domains/${name}/transfer`, { body: { ...body, billables: oldBillables } });
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
    expect(refused.body.message).toMatch(/^The price of domain_com TRANSFER is \d+ now, more than the acknowledged \d+/);
    expect(refused.body.quote.billables[0].amount).toBeGreaterThan(oldBillables[0].amount);
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    // The new quote echoed back is accepted.
    const accepted = await call('POST', `/v2/domains/${name}/transfer`, { body: { ...body, billables: refused.body.quote.billables } });
    expect(accepted.status, accepted.raw).toBeLessThan(300);
  });

  it('applies to a list price too, and accepts an amount at or above the price', async () => {
    await sandboxDomain('list-price-ack.com');
    const body = { customer: 'demo', registrant: 'demo-registrant', authcode: 'TEST-CODE' };
    const quoted = await call('POST', '/v2/domains/list-price-ack.com/transfer?quote=true', { body });
    const [line] = quoted.body.quote.billables;
    const before = await snapshotTable();
    const low = await call('POST', '/v2/domains/list-price-ack.com/transfer', {
      body: { ...body, billables: [{ ...line, amount: line.amount - 1 }] },
    });
    expect(low.status).toBe(400);
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
    expect(low.body).toMatchObject({ type: 'BillableAcknowledgmentNeededException', quote: quoted.body.quote });
    const high = await call('POST', '/v2/domains/list-price-ack.com/transfer', {
      body: { ...body, billables: [{ ...line, amount: line.amount + 100 }] },
    });
    expect(high.status, high.raw).toBeLessThan(300);
  });
});

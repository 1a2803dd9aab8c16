import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { demoDataFile, readDatasetFile } from '../infra/dataset.ts';
import { migrateTable } from '../infra/migrate.ts';
import { sslProductFields } from '../shared/certificates/product-fields.ts';
import { SslProduct } from '../shared/certificates/product-view.ts';
import { db } from '../shared/db/client.ts';
import { putItem, toItem } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { getProvider } from '../shared/db/repositories/providers.ts';
import { listRates, putRates } from '../shared/db/repositories/rates.ts';
import { tableName } from '../shared/db/table.ts';
import { forgetCachedRates } from '../shared/pricing/rates.ts';
import { call, demoKey, otherKey } from './support/api.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * The reads the official SDKs offer on data the service holds, in the real API's shapes: the
 * latest transfer of a name (the PHP SDK's transferInfo($domain)), the providers listing, the SSL
 * product catalogue and the exchange rates.
 */

describe('GET /v2/domains/{domainName}/transfer: the latest transfer of a name', () => {
  it("answers the caller's newest transfer of the name, as the transfer info of its process id does", async () => {
    const name = `latest-${process.pid}.com`;
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pendingfoa', seconds: 86_400 }], outcome: 'completed' } });
    const first = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    expect(first.status).toBe(202);
    const cancelled = await call('DELETE', `/v2/processes/${first.body.processId}`);
    expect(cancelled.status).toBe(200);
    const second = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    expect(second.status).toBe(202);
    expect(second.body.processId).toBeGreaterThan(first.body.processId);

    const latest = await call('GET', `/v2/domains/${name}/transfer`);
    expect(latest.status).toBe(200);
    const byId = await call('GET', `/v2/domains/${name}/transfer/${second.body.processId}`);
    expect(latest.body).toEqual(byId.body);
    expect(latest.body).toMatchObject({ domainName: name, status: 'pendingfoa', type: 'IN', processId: second.body.processId });
    // A trailing slash and HEAD, as on every GET route.
    expect((await call('GET', `/v2/domains/${name.toUpperCase()}/transfer/`)).body).toEqual(byId.body);
    expect((await call('HEAD', `/v2/domains/${name}/transfer`)).status).toBe(200);
  });

  it("answers 404 alike for a name the caller never transferred and for another customer's transfer", async () => {
    const name = `latest-theirs-${process.pid}.com`;
    await sandboxDomain(name, { transfer: { stages: [{ status: 'pendingfoa', seconds: 86_400 }], outcome: 'completed' } });
    const theirs = await transfer(name, { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' }, { key: otherKey });
    expect(theirs.status).toBe(202);
    expect((await call('GET', `/v2/domains/${name}/transfer`, { key: otherKey })).body.processId).toBe(theirs.body.processId);
    const foreign = await call('GET', `/v2/domains/${name}/transfer`);
    const missing = await call('GET', '/v2/domains/never-transferred.com/transfer');
    for (const [res, identifier] of [
      [foreign, name],
      [missing, 'never-transferred.com'],
    ] as const) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        type: 'ObjectDoesNotExist',
        message: expect.any(String),
        objectType: 'Transfer',
        identifier,
        requestId: res.headers['x-request-id'],
      });
    }
    expect(foreign.body.message.replace(name, 'X')).toBe(missing.body.message.replace('never-transferred.com', 'X'));
    const bad = await call('GET', '/v2/domains/not_a_name/transfer');
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe('ConstraintViolationException');
  });
});

describe('GET /v2/providers: the registries, a page at a time', () => {
  it('lists every registry by name with the TLDs it serves, and the total', async () => {
    const res = await call('GET', '/v2/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      entities: [
        { name: 'nominet', tlds: ['uk', 'co.uk'] },
        { name: 'sidn', tlds: ['nl'] },
        { name: 'verisign', tlds: ['com', 'net'] },
      ],
      pagination: { limit: 10, offset: 0, total: 3 },
    });
    // The same for every customer: configuration.
    expect((await call('GET', '/v2/providers/', { key: otherKey })).body).toEqual(res.body);
  });

  it('pages, orders, searches names and TLDs, and leaves the total out on request', async () => {
    expect((await call('GET', '/v2/providers?limit=1&offset=1&order=-name')).body).toEqual({
      entities: [{ name: 'sidn', tlds: ['nl'] }],
      pagination: { limit: 1, offset: 1, total: 3 },
    });
    expect((await call('GET', '/v2/providers?q=CO.UK')).body.entities.map((p: { name: string }) => p.name)).toEqual(['nominet']);
    expect((await call('GET', '/v2/providers?q=IDN&total=false')).body).toEqual({
      entities: [{ name: 'sidn', tlds: ['nl'] }],
      pagination: { limit: 10, offset: 0 },
    });
    expect((await call('GET', '/v2/providers?offset=50')).body).toEqual({ entities: [], pagination: { limit: 10, offset: 50, total: 3 } });
  });

  it('refuses malformed listing parameters with every violation named', async () => {
    const res = await call('GET', '/v2/providers?limit=0&offset=-1&order=tlds&total=maybe&limit=5');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['limit', 'offset', 'order', 'total']);
  });

  it('lists a provider written before providers were listed once the table is migrated', async () => {
    const sidn = await getProvider('REGISTRY', 'sidn');
    if (!sidn) throw new Error('sidn missing');
    const record = { ...sidn, name: 'zz-legacy', metadata: { ...sidn.metadata, possibleDomainExtensions: [] } };
    const { pk, sk } = keys.provider(record.kind, record.name);
    await putItem(toItem({ pk, sk }, 'provider', record));
    const names = async () => (await call('GET', '/v2/providers?limit=100')).body.entities.map((p: { name: string }) => p.name);
    expect(await names()).not.toContain('zz-legacy');
    expect(await migrateTable()).toMatchObject({ providersUnlisted: 1, providersListed: 1 });
    expect(await names()).toContain('zz-legacy');
    expect(await migrateTable()).toMatchObject({ providersUnlisted: 0, providersListed: 0 });
    expect((await call('GET', '/v2/providers/zz-legacy')).body).toEqual({ name: 'zz-legacy', tlds: [] });
  });
});

describe('GET /v2/ssl/products and GET /v2/ssl/products/{product}: the SSL product catalogue', () => {
  const positiveSsl = {
    product: 'ssl_sectigo_dv',
    brand: 'Sectigo',
    name: 'Sectigo PositiveSSL',
    validationType: 'DOMAIN_VALIDATION',
    certificateType: 'SINGLE_DOMAIN',
    features: ['WWW_INCLUDED', 'NON_WWW_INCLUDED'],
    periods: [12, 24, 36],
    warranty: 10000,
    issueTime: '5 minutes',
    renewalWindow: 90,
    includedDomains: 1,
    maxDomains: 1,
    requiredFields: [],
    optionalFields: ['domainName'],
  };

  it("answers one product in the SDKs' shape, its name case-insensitive; an unknown one is 404", async () => {
    const res = await call('GET', '/v2/ssl/products/SSL_Sectigo_DV');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(positiveSsl);
    const ev = await call('GET', '/v2/ssl/products/ssl_digicert_ev', { key: otherKey });
    expect(ev.body).toMatchObject({
      brand: 'DigiCert',
      validationType: 'EXTENDED_VALIDATION',
      certificateType: 'MULTI_DOMAIN',
      features: [],
      requiredFields: ['organization', 'address', 'postalCode', 'city', 'coc', 'approver', 'saEmail'],
    });
    const missing = await call('GET', '/v2/ssl/products/ssl_none');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: expect.any(String),
      objectType: 'Product',
      identifier: 'ssl_none',
      requestId: missing.headers['x-request-id'],
    });
    expect((await call('GET', '/v2/ssl/products/not-a-product')).status).toBe(400);
  });

  it('answers only the fields asked (repeated or comma-separated), as the other reads do; an unknown field is a 400', async () => {
    const some = await call('GET', '/v2/ssl/products/ssl_sectigo_dv?fields=product,periods&fields=maxDomains');
    expect(some.status).toBe(200);
    expect(some.body).toEqual({ product: 'ssl_sectigo_dv', periods: [12, 24, 36], maxDomains: expect.any(Number) });
    const whole = await call('GET', '/v2/ssl/products/ssl_sectigo_dv');
    expect(Object.keys(whole.body)).toEqual(expect.arrayContaining(['product', 'brand', 'name', 'periods', 'requiredFields']));
    const wrong = await call('GET', '/v2/ssl/products/ssl_sectigo_dv?fields=product,price');
    expect(wrong.status).toBe(400);
    expect(wrong.body.type).toBe('ConstraintViolationException');
    expect(JSON.stringify(wrong.body)).toContain('price');
    // Every field of the answered shape may be asked for.
    expect([...sslProductFields].sort()).toEqual(Object.keys(SslProduct.entries).sort());
  });

  it('lists the catalogue by product, pages it and searches it', async () => {
    const all = await call('GET', '/v2/ssl/products');
    expect(all.status).toBe(200);
    expect(all.body.entities.map((p: { product: string }) => p.product)).toEqual([
      'ssl_digicert_ev',
      'ssl_sectigo_dv',
      'ssl_sectigo_dv_multi',
      'ssl_sectigo_ov',
    ]);
    expect(all.body.entities[1]).toEqual(positiveSsl);
    expect(all.body.entities[2]).toMatchObject({ certificateType: 'MULTI_DOMAIN', features: ['WILDCARD'] });
    expect(all.body.pagination).toEqual({ limit: 10, offset: 0, total: 4 });
    expect((await call('GET', '/v2/ssl/products?q=digicert&total=false')).body).toEqual({
      entities: [all.body.entities[0]],
      pagination: { limit: 10, offset: 0 },
    });
    const page = await call('GET', '/v2/ssl/products?order=-product&limit=2&offset=1');
    expect(page.body.entities.map((p: { product: string }) => p.product)).toEqual(['ssl_sectigo_dv_multi', 'ssl_sectigo_dv']);
    expect((await call('GET', '/v2/ssl/products?order=name')).status).toBe(400);
  });
});

describe("GET /v2/ssl/certificates/{certificateId}: the validation type in the SDKs' enum", () => {
  it("answers DOMAIN_VALIDATION, ORGANIZATION_VALIDATION or EXTENDED_VALIDATION, as the certificate's product does", async () => {
    // Both SDKs read validationType as an enum of these three names; the PHP SDK refuses any other value.
    for (const [id, key, validationType] of [
      [1001, undefined, 'DOMAIN_VALIDATION'],
      [1002, undefined, 'DOMAIN_VALIDATION'],
      [1003, undefined, 'ORGANIZATION_VALIDATION'],
      [2001, otherKey, 'DOMAIN_VALIDATION'],
    ] as const) {
      const res = await call('GET', `/v2/ssl/certificates/${id}`, key ? { key } : {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, validationType, certificateType: expect.stringMatching(/^(SINGLE|MULTI)_DOMAIN$/) });
      const product = await call('GET', `/v2/ssl/products/${res.body.product}`);
      expect(product.body.validationType).toBe(res.body.validationType);
    }
  });

  it('answers every demo certificate with process: the completed certificate request of the same customer that issued it', async () => {
    // The PHP SDK's Certificate::fromArray takes `process` as an int: without it certificates->get() fails.
    const keys: Record<string, string> = { demo: demoKey, other: otherKey };
    const certificates = (await readDatasetFile(demoDataFile)).certificates ?? [];
    expect(certificates.map((c) => c.id)).toEqual([1001, 1002, 1003, 2001]);
    for (const { id, customer } of certificates) {
      const key = keys[customer];
      if (key === undefined) throw new Error(`No API key of customer ${customer} for certificate ${id}`);
      const certificate = await call('GET', `/v2/ssl/certificates/${id}`, { key });
      expect(certificate.status).toBe(200);
      const processId = certificate.body.process;
      expect({ id, integer: Number.isInteger(processId) }).toEqual({ id, integer: true });
      const issuing = await call('GET', `/v2/processes/${processId}`, { key });
      expect(issuing.status).toBe(200);
      expect(issuing.body).toMatchObject({ id: processId, customer, type: 'certificate', action: 'request', status: 'COMPLETED' });
      expect(issuing.body.identifier).toBe(certificate.body.domainName);
      expect(Date.parse(issuing.body.createdDate)).toBeLessThan(Date.parse(certificate.body.startDate));
      const info = await call('GET', `/v2/processes/${processId}/info`, { key });
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ commonName: certificate.body.domainName, issuedCertificateId: id, requiresAttention: false });
      // The issuing process is the customer's own: the other customer reads it as missing.
      const foreign = await call('GET', `/v2/processes/${processId}/info`, { key: key === demoKey ? otherKey : demoKey });
      expect(foreign.status).toBe(404);
    }
  });
});

describe('GET /v2/exchangerates/{currency}: the latest stored rates', () => {
  it('answers the ECB rates for EUR as stored, cross rates for USD, and the rate date', async () => {
    const eur = await call('GET', '/v2/exchangerates/EUR');
    expect(eur.status).toBe(200);
    expect(eur.body).toEqual({ currency: 'EUR', exchangerates: { CHF: 0.9248, GBP: 0.87955, JPY: 180.41, USD: 1.1523 } });
    expect(eur.headers['x-exchange-rate-date']).toBe('2026-11-19');
    const usd = await call('GET', '/v2/exchangerates/usd', { key: otherKey });
    expect(usd.body).toEqual({ currency: 'USD', exchangerates: { CHF: 0.802569, EUR: 0.86783, GBP: 0.763299, JPY: 156.565 } });
    const bad = await call('GET', '/v2/exchangerates/GBP');
    expect(bad.status).toBe(400);
    expect(bad.body.violations).toEqual([{ field: 'currency', message: 'must be EUR or USD', value: 'GBP' }]);
  });

  it("lists EUR's and USD's rates as each currency's route answers them (the TS SDK's listExchangeRates)", async () => {
    const list = await call('GET', '/v2/exchangerates');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([(await call('GET', '/v2/exchangerates/EUR')).body, (await call('GET', '/v2/exchangerates/USD')).body]);
    expect(list.headers['x-exchange-rate-date']).toBe('2026-11-19');
    // The SDK's trailing slash, and the same list for every customer.
    expect((await call('GET', '/v2/exchangerates/', { key: otherKey })).raw).toBe(list.raw);
  });

  it('answers 404 while no rates are stored, and an empty list', async () => {
    const stored = await listRates('EUR');
    for (const rates of stored) await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.rate(rates.base, rates.date) }));
    forgetCachedRates();
    try {
      const res = await call('GET', '/v2/exchangerates/EUR');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'ExchangeRates', identifier: 'EUR' });
      const list = await call('GET', '/v2/exchangerates');
      expect(list.status).toBe(200);
      expect(list.body).toEqual([]);
      expect(list.headers['x-exchange-rate-date']).toBeUndefined();
    } finally {
      for (const rates of stored) await putRates(rates);
      forgetCachedRates();
    }
    expect((await call('GET', '/v2/exchangerates/EUR')).status).toBe(200);
  });
});

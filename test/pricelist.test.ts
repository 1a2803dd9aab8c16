import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../functions/pricelist/handler.ts';
import { loadDataset, parseDataset } from '../infra/dataset.ts';
import { type LocalServer, startServer } from '../infra/local/server.ts';
import { migrateTable } from '../infra/migrate.ts';
import { db } from '../shared/db/client.ts';
import { keys } from '../shared/db/keys.ts';
import { raisePriceListVersion } from '../shared/db/repositories/price-snapshots.ts';
import { putPrice, putPromo } from '../shared/db/repositories/prices.ts';
import { listRates, putRates } from '../shared/db/repositories/rates.ts';
import { tableName } from '../shared/db/table.ts';
import { forgetCachedRates } from '../shared/pricing/index.ts';
import { toWireTime } from '../shared/time.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

interface Entry {
  product: string;
  action: string;
  currency: string;
  price: number;
  fromDate: string;
}

const y2026 = '2026-01-01T00:00:00Z';
const sept2025 = '2025-09-01T00:00:00Z';
const e = (product: string, action: string, price: number, fromDate = y2026, currency = 'EUR'): Entry => ({
  product,
  action,
  currency,
  price,
  fromDate,
});
const usd = (product: string, action: string, price: number, fromDate = y2026): Entry => e(product, action, price, fromDate, 'USD');

/** The demo customer's list as of late 2026 (infra/demo-data.json). */
const demoList = {
  prices: [
    e('dns_premium', 'CREATE', 300),
    e('domain_co.uk', 'CREATE', 599),
    e('domain_co.uk', 'RENEW', 599),
    e('domain_co.uk', 'TRANSFER', 0),
    e('domain_com', 'CREATE', 1049, sept2025),
    e('domain_com', 'PRIVACY_PROTECT', 250, sept2025),
    e('domain_com', 'RENEW', 1049, sept2025),
    e('domain_com', 'RESTORE', 6500, sept2025),
    e('domain_com', 'TRANSFER', 1049, sept2025),
    e('domain_net', 'CREATE', 1249),
    e('domain_net', 'PRIVACY_PROTECT', 250),
    e('domain_net', 'RENEW', 1249),
    e('domain_net', 'RESTORE', 6500),
    e('domain_net', 'TRANSFER', 1249),
    e('domain_nl', 'CREATE', 449),
    e('domain_nl', 'RENEW', 549),
    e('domain_nl', 'RESTORE', 1500),
    e('domain_nl', 'TRANSFER', 449),
    e('domain_uk', 'CREATE', 599),
    e('domain_uk', 'RENEW', 599),
    e('domain_uk', 'TRANSFER', 0),
    e('ssl_digicert_ev', 'EXTRA_DOMAIN', 8900),
    e('ssl_digicert_ev', 'RENEW', 14900),
    e('ssl_digicert_ev', 'REQUEST', 14900),
    e('ssl_sectigo_dv', 'RENEW', 1295),
    e('ssl_sectigo_dv', 'REQUEST', 1295),
    e('ssl_sectigo_dv_multi', 'EXTRA_DOMAIN', 1195),
    e('ssl_sectigo_dv_multi', 'EXTRA_WILDCARD', 5995),
    e('ssl_sectigo_dv_multi', 'RENEW', 2995),
    e('ssl_sectigo_dv_multi', 'REQUEST', 2995),
    e('ssl_sectigo_ov', 'RENEW', 6900),
    e('ssl_sectigo_ov', 'REQUEST', 6900),
  ],
  priceChanges: [
    e('domain_com', 'CREATE', 1129, '2030-01-01T00:00:00Z'),
    e('domain_com', 'RENEW', 1129, '2030-01-01T00:00:00Z'),
    e('domain_com', 'TRANSFER', 1129, '2030-01-01T00:00:00Z'),
  ],
  promos: [
    { ...e('domain_com', 'TRANSFER', 799, '2026-10-01T00:00:00Z'), endDate: '2029-12-31T00:00:00Z', active: false },
    { ...e('domain_nl', 'CREATE', 99, '2026-11-01T00:00:00Z'), endDate: '2029-12-31T00:00:00Z', active: true },
  ],
};

/** Independent arithmetic for the checks: a non-negative amount times 1.1523, half up (= away from zero). */
const eurToUsd = (cents: number) => Math.floor((cents * 11523 + 5000) / 10000);
/** ... and divided by 1.1523, half up. */
const usdToEur = (cents: number) => Math.floor((2 * cents * 10000 + 11523) / (2 * 11523));

function convertAll<T extends Entry>(entries: T[], currency: string, f: (c: number) => number): T[] {
  return entries.map((x) => ({ ...x, currency, price: f(x.price) }));
}

describe('GET /v2/customers/{customer}/pricelist', () => {
  it('answers current prices, scheduled changes and promos in product-then-action order', async () => {
    const res = await call('GET', '/v2/customers/demo/pricelist');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-exchange-rate-date']).toBeUndefined();
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(res.body).toEqual(demoList);
  });

  it('answers the other customer its own list in its own currency, promo flags per customer', async () => {
    const res = await call('GET', '/v2/customers/other/pricelist', { key: otherKey });
    expect(res.status).toBe(200);
    expect(res.body.prices.slice(0, 9)).toEqual([
      usd('dns_premium', 'CREATE', 350),
      usd('domain_co.uk', 'CREATE', 699),
      usd('domain_co.uk', 'RENEW', 699),
      usd('domain_co.uk', 'TRANSFER', 0),
      usd('domain_com', 'CREATE', 1199),
      usd('domain_com', 'PRIVACY_PROTECT', 299),
      usd('domain_com', 'RENEW', 1199),
      usd('domain_com', 'RESTORE', 7500),
      usd('domain_com', 'TRANSFER', 1199),
    ]);
    expect(res.body.prices).toHaveLength(32);
    expect(res.body.priceChanges).toEqual([
      usd('domain_com', 'CREATE', 1299, '2030-01-01T00:00:00Z'),
      usd('domain_com', 'RENEW', 1299, '2030-01-01T00:00:00Z'),
      usd('domain_com', 'TRANSFER', 1299, '2030-01-01T00:00:00Z'),
    ]);
    expect(res.body.promos).toEqual([
      { ...usd('domain_com', 'TRANSFER', 899, '2026-10-01T00:00:00Z'), endDate: '2029-12-31T00:00:00Z', active: false },
      { ...usd('domain_net', 'CREATE', 699, '2026-11-01T00:00:00Z'), endDate: '2029-12-31T00:00:00Z', active: true },
    ]);
  });

  it('converts every amount to USD at the latest stored rate, naming its date (currency case-insensitive)', async () => {
    const res = await call('GET', '/v2/customers/demo/pricelist?currency=usd');
    expect(res.status).toBe(200);
    expect(res.headers['x-exchange-rate-date']).toBe('2026-11-19');
    expect(res.body).toEqual({
      prices: convertAll(demoList.prices, 'USD', eurToUsd),
      priceChanges: convertAll(demoList.priceChanges, 'USD', eurToUsd),
      promos: convertAll(demoList.promos, 'USD', eurToUsd),
    });
    // Spot checks of the arithmetic: 1049 x 1.1523 = 1208.7627; 99 x 1.1523 = 114.0777; 5995 x 1.1523 = 6908.0385.
    expect(res.body.prices[4].price).toBe(1209);
    expect(res.body.promos[1].price).toBe(114);
    expect(res.body.prices[27].price).toBe(6908);
  });

  it('converts USD prices to EUR by the same rate', async () => {
    const own = await call('GET', '/v2/customers/other/pricelist', { key: otherKey });
    const res = await call('GET', '/v2/customers/other/pricelist?currency=Eur', { key: otherKey });
    expect(res.status).toBe(200);
    expect(res.headers['x-exchange-rate-date']).toBe('2026-11-19');
    expect(res.body).toEqual({
      prices: convertAll(own.body.prices, 'EUR', usdToEur),
      priceChanges: convertAll(own.body.priceChanges, 'EUR', usdToEur),
      promos: convertAll(own.body.promos, 'EUR', usdToEur),
    });
    expect(res.body.prices[4]).toEqual(e('domain_com', 'CREATE', 1041)); // 1199 / 1.1523 = 1040.53
  });

  it('leaves amounts already in the requested currency unchanged, still naming the rate date', async () => {
    const res = await call('GET', '/v2/customers/demo/pricelist?currency=EUR');
    expect(res.status).toBe(200);
    expect(res.headers['x-exchange-rate-date']).toBe('2026-11-19');
    expect(res.body).toEqual(demoList);
  });

  it.each([['GBP'], ['eu'], [''], ['EURO']])('answers 400 ConstraintViolationException for currency=%s', async (currency) => {
    const res = await call('GET', `/v2/customers/demo/pricelist?currency=${currency}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'currency: must be EUR or USD',
      violations: [{ field: 'currency', message: 'must be EUR or USD', value: currency.toUpperCase() }],
      requestId: res.headers['x-request-id'],
    });
  });

  it("answers 403 for another customer's list, without reading the table", async () => {
    await call('GET', '/v2/customers/demo/pricelist'); // the key's authorization is cached, as in API Gateway
    const { result: res, calls } = await recordTableCalls(() => call('GET', '/v2/customers/other/pricelist'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      type: 'AuthorizationError',
      message: "The price list of customer 'other' is not yours to read.",
      requestId: res.headers['x-request-id'],
    });
    expect(calls).toEqual([]);
  });

  it('answers 400 for a malformed customer handle and 401 without a key', async () => {
    const bad = await call('GET', '/v2/customers/x/pricelist');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'customer: must be 3 to 40 characters long',
      violations: [{ field: 'customer', message: 'must be 3 to 40 characters long', value: 'x' }],
      requestId: bad.headers['x-request-id'],
    });
    const anonymous = await call('GET', '/v2/customers/demo/pricelist', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.type).toBe('AuthenticationError');
  });

  it('reads the table once per request: one Query, the converted list included once the rates are cached', async () => {
    await call('GET', '/v2/customers/demo/pricelist?currency=USD'); // warm: key authorization and rates cached
    const plain = await recordTableCalls(() => call('GET', '/v2/customers/demo/pricelist'));
    expect(plain.result.status).toBe(200);
    expect(plain.calls).toEqual(['QueryCommand']);
    const converted = await recordTableCalls(() => call('GET', '/v2/customers/demo/pricelist?currency=USD'));
    expect(converted.result.status).toBe(200);
    expect(converted.calls).toEqual(['QueryCommand']);
    // A cold function reads the rates too (one Query each, in parallel), then caches them.
    forgetCachedRates();
    const cold = await recordTableCalls(() => call('GET', '/v2/customers/demo/pricelist?currency=USD'));
    expect(cold.calls).toEqual(['QueryCommand', 'QueryCommand']);
    expect(cold.result.body).toEqual(converted.result.body);
  });

  it('answers 304 with no body for If-None-Match with the current ETag, per representation', async () => {
    const first = await call('GET', '/v2/customers/demo/pricelist');
    const again = await call('GET', '/v2/customers/demo/pricelist', { headers: { 'If-None-Match': first.headers.etag as string } });
    expect(again.status).toBe(304);
    expect(again.raw).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['x-request-id']).toBeDefined();
    const converted = await call('GET', '/v2/customers/demo/pricelist?currency=USD', {
      headers: { 'If-None-Match': first.headers.etag as string },
    });
    expect(converted.status).toBe(200);
    expect(converted.headers.etag).not.toBe(first.headers.etag);
  });

  it('changes the ETag when the list changes', async () => {
    const before = await call('GET', '/v2/customers/demo/pricelist');
    await putPrice({
      customer: 'demo',
      product: 'domain_nl',
      action: 'RENEW',
      currency: 'EUR',
      price: 579,
      fromDate: toWireTime(Date.now() - 60_000),
    });
    const after = await call('GET', '/v2/customers/demo/pricelist', { headers: { 'If-None-Match': before.headers.etag as string } });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.prices.find((p: Entry) => p.product === 'domain_nl' && p.action === 'RENEW').price).toBe(579);
  });

  it('serves the list over HTTP through the local server', async () => {
    const server: LocalServer = await startServer({ port: 0 });
    try {
      const res = await fetch(`${server.url}/v2/customers/other/pricelist?currency=EUR`, {
        headers: { Authorization: `ApiKey ${otherKey}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-exchange-rate-date')).toBe('2026-11-19');
      const body = (await res.json()) as { prices: Entry[] };
      expect(body.prices[4]).toEqual(e('domain_com', 'CREATE', 1041));
      const cached = await fetch(`${server.url}/v2/customers/other/pricelist?currency=EUR`, {
        headers: { Authorization: `ApiKey ${otherKey}`, 'If-None-Match': res.headers.get('etag') as string },
      });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe('');
    } finally {
      await server.close();
    }
  });
});

describe('a price list at scale', () => {
  const customer = 'bulk-customer';
  const count = 5000;
  // Long product names make the partition larger than one 1 MB Query page.
  const product = (i: number) => `ssl_bulk_product_${String(i).padStart(4, '0')}_with_a_long_descriptive_name_to_fill_pages`;

  beforeAll(async () => {
    const prices = Array.from({ length: count }, (_, i) => ({
      customer,
      product: product(count - 1 - i),
      action: i % 2 === 0 ? 'REQUEST' : 'RENEW',
      currency: 'EUR',
      price: 1000 + i,
      fromDate: y2026,
    }));
    const customers = [
      { handle: customer, name: 'Bulk Customer B.V.', currency: 'EUR', privacyProtect: false, createdDate: '2026-01-01T00:00:00Z' },
    ];
    await loadDataset(parseDataset({ customers, prices }));
  }, 300_000);

  const scaleEvent = (headers: Record<string, string> = {}) =>
    apiEvent({
      method: 'GET',
      path: `/v2/customers/${customer}/pricelist`,
      resource: '/v2/customers/{customer}/pricelist',
      pathParameters: { customer },
      principal: { customer, user: 'bulk', permissions: [] },
      headers,
    });

  it('answers all 5,000 entries in order from its snapshot, built by the load: one Query of a few items', async () => {
    const { result: res, calls } = await recordTableCalls(() => invoke(handler, scaleEvent()));
    expect(res.status).toBe(200);
    expect(res.body.prices).toHaveLength(count);
    expect(res.body.prices[0]).toEqual({ product: product(0), action: 'RENEW', currency: 'EUR', price: 1000 + count - 1, fromDate: y2026 });
    expect(res.body.prices[count - 1]).toEqual({
      product: product(count - 1),
      action: 'REQUEST',
      currency: 'EUR',
      price: 1000,
      fromDate: y2026,
    });
    const order = res.body.prices.map((p: Entry) => p.product);
    expect(order).toEqual([...order].sort());
    expect(calls).toEqual(['QueryCommand']);
  });

  it.each([
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
  ])(
    'answers %s from its snapshot exactly as from the list read whole (its Query paged to the end), ETag included',
    async (accept, coding) => {
      const snapshot = await invoke(handler, scaleEvent({ 'Accept-Encoding': accept }));
      expect(snapshot.headers['content-encoding']).toBe(coding);
      // As after a write of the list: the snapshot is stale, the list is read whole and the new snapshot stored.
      await raisePriceListVersion(customer);
      const { result: whole, calls } = await recordTableCalls(() => invoke(handler, scaleEvent({ 'Accept-Encoding': accept })));
      expect(calls.filter((c) => c === 'QueryCommand').length).toBeGreaterThanOrEqual(3);
      expect(calls).toContain('UpdateItemCommand');
      expect(whole.headers['content-encoding']).toBe(coding);
      expect(whole.raw).toBe(snapshot.raw);
      expect(whole.headers.etag).toBe(snapshot.headers.etag);
      const again = await recordTableCalls(() => invoke(handler, scaleEvent({ 'Accept-Encoding': accept })));
      expect(again.calls).toEqual(['QueryCommand']);
      expect(again.result.raw).toBe(snapshot.raw);
      if (coding !== undefined) expect((snapshot.wireBytes ?? 0) * 5).toBeLessThan(Buffer.byteLength(snapshot.raw));
    },
  );
});

describe('the snapshot of a price list stays fresh', () => {
  const customer = 'fresh-customer';
  const principal = { customer, user: 'fresh', permissions: [] };
  const get = (headers: Record<string, string> = { 'Accept-Encoding': 'br' }) =>
    recordTableCalls(() =>
      invoke(
        handler,
        apiEvent({
          method: 'GET',
          path: `/v2/customers/${customer}/pricelist`,
          resource: '/v2/customers/{customer}/pricelist',
          pathParameters: { customer },
          principal,
          headers,
        }),
      ),
    );
  const product = (i: number) => `domain_fresh${String(i).padStart(3, '0')}`;

  beforeAll(async () => {
    const prices = Array.from({ length: 300 }, (_, i) => ({
      customer,
      product: product(i),
      action: 'CREATE',
      currency: 'EUR',
      price: 500 + i,
      fromDate: y2026,
    }));
    const customers = [{ handle: customer, name: 'Fresh B.V.', currency: 'EUR', privacyProtect: false, createdDate: y2026 }];
    await loadDataset(parseDataset({ customers, prices }));
  }, 300_000);

  it('serves a price written through the repository from the first request after the write', async () => {
    const before = await get();
    expect(before.calls).toEqual(['QueryCommand']);
    expect(before.result.body.prices[0]).toEqual(e(product(0), 'CREATE', 500));
    await putPrice({
      customer,
      product: product(0),
      action: 'CREATE',
      currency: 'EUR',
      price: 555,
      fromDate: toWireTime(Date.now() - 60_000),
    });
    const after = await get();
    expect(after.result.body.prices[0]).toEqual(e(product(0), 'CREATE', 555, after.result.body.prices[0].fromDate));
    expect(after.result.headers.etag).not.toBe(before.result.headers.etag);
    expect((await get()).calls).toEqual(['QueryCommand']);
  });

  it('never serves a snapshot with a part missing: the list is read whole instead', async () => {
    const good = await get();
    const { Items = [] } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.priceSnapshot(customer).pk },
      }),
    );
    const part = Items.find((item) => String(item.sk).startsWith('PART#'));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: part?.pk, sk: part?.sk } }));
    const healed = await get();
    expect(healed.calls.length).toBeGreaterThan(1);
    expect(healed.result.raw).toBe(good.result.raw);
    expect(healed.result.headers.etag).toBe(good.result.headers.etag);
    expect((await get()).calls).toEqual(['QueryCommand']);
  });

  it('answers otherwise from the instant a scheduled price takes effect and a promo ends', async () => {
    // A price change and a promo end three seconds from now: the snapshot built now holds until then.
    const soon = toWireTime(Date.now() + 3000);
    await putPrice({ customer, product: product(1), action: 'CREATE', currency: 'EUR', price: 999, fromDate: soon });
    await putPromo({
      customer,
      product: product(2),
      action: 'CREATE',
      currency: 'EUR',
      price: 99,
      fromDate: y2026,
      endDate: soon,
      active: true,
    });
    const early = await get();
    expect(early.calls.length).toBeGreaterThan(1);
    if (toWireTime(new Date()) < soon) {
      expect(early.result.body.priceChanges).toEqual([e(product(1), 'CREATE', 999, soon)]);
      expect(early.result.body.promos).toHaveLength(1);
      expect((await get()).calls).toEqual(['QueryCommand']);
    }
    while (toWireTime(new Date()) < soon) await new Promise((resolve) => setTimeout(resolve, 200));
    // Derived from the snapshot alone: its one Query, then the new snapshot stored.
    const late = await get();
    expect(late.calls.filter((c) => c === 'QueryCommand')).toHaveLength(1);
    expect(late.calls).toContain('UpdateItemCommand');
    expect(late.result.body.priceChanges).toEqual([]);
    expect(late.result.body.promos).toEqual([]);
    expect(late.result.body.prices[1]).toEqual(e(product(1), 'CREATE', 999, soon));
    const gzip = await get({ 'Accept-Encoding': 'gzip' });
    expect(gzip.calls).toEqual(['QueryCommand']);
    expect(gzip.result.body).toEqual(late.result.body);
    // The same bytes as the list read whole at this instant.
    await raisePriceListVersion(customer);
    const whole = await get();
    expect(whole.calls.filter((c) => c === 'QueryCommand')).toHaveLength(2);
    expect(whole.result.raw).toBe(late.result.raw);
    expect(whole.result.headers.etag).toBe(late.result.headers.etag);
  }, 20_000);

  it('is rebuilt by the migration for a list stored without one', async () => {
    const good = await get();
    const { Items = [] } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.priceSnapshot(customer).pk },
      }),
    );
    for (const item of Items) await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
    const report = await migrateTable();
    expect(report.priceListsUnsnapshotted).toBeGreaterThanOrEqual(1);
    expect(report.priceListsSnapshotted).toBe(report.priceListsUnsnapshotted);
    expect(await migrateTable()).toMatchObject({ priceListsUnsnapshotted: 0, priceListsSnapshotted: 0 });
    const after = await get();
    expect(after.calls).toEqual(['QueryCommand']);
    expect(after.result.raw).toBe(good.result.raw);
  }, 60_000);
});

describe('conversion edge cases', () => {
  const customer = 'halfcent';
  const principal = { customer, user: 'tester', permissions: [] };
  const event = (query: Record<string, string>) =>
    apiEvent({
      method: 'GET',
      path: `/v2/customers/${customer}/pricelist`,
      resource: '/v2/customers/{customer}/pricelist',
      pathParameters: { customer },
      query,
      principal,
    });

  afterAll(() => forgetCachedRates());

  it('rounds exactly half a cent away from zero', async () => {
    for (const [i, price] of [1, 3, 5, 7, 10].entries()) {
      await putPrice({ customer, product: `domain_t${i}`, action: 'CREATE', currency: 'EUR', price, fromDate: y2026 });
    }
    await putRates({ base: 'EUR', date: '2026-11-20', rates: { USD: 1.5 } });
    forgetCachedRates();
    const res = await invoke(handler, event({ currency: 'USD' }));
    expect(res.status).toBe(200);
    expect(res.headers['x-exchange-rate-date']).toBe('2026-11-20');
    // 1.5 -> 2, 4.5 -> 5, 7.5 -> 8, 10.5 -> 11, 15 -> 15
    expect(res.body.prices.map((p: Entry) => p.price)).toEqual([2, 5, 8, 11, 15]);
  });

  it('answers 400 ValidationError, never a wrong number, when the latest rates lack the currency', async () => {
    await putRates({ base: 'EUR', date: '2026-11-21', rates: { GBP: 0.8783 } });
    forgetCachedRates();
    const res = await invoke(handler, event({ currency: 'USD' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ValidationError',
      message: 'No USD exchange rate is stored for 2026-11-21; the amount cannot be converted.',
      requestId: res.headers['x-request-id'],
    });
  });

  it('answers 400 ValidationError when no rates are stored at all', async () => {
    for (const r of await listRates()) {
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.rate(r.base, r.date) }));
    }
    forgetCachedRates();
    const res = await invoke(handler, event({ currency: 'EUR' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ValidationError',
      message: 'No exchange rates are stored yet; the price list cannot be converted. Retry without currency.',
      requestId: res.headers['x-request-id'],
    });
    const plain = await invoke(handler, event({}));
    expect(plain.status).toBe(200);
  });
});

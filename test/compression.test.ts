import { beforeAll, describe, expect, it } from 'vitest';
import { bigListEntries, writeBigPriceList } from '../bench/big-data.ts';
import { handler as pricelistHandler } from '../functions/pricelist/handler.ts';
import { createGateway, integrationResponse, limits } from '../infra/local/gateway.ts';
import { startServer } from '../infra/local/server.ts';
import { db } from '../shared/db/client.ts';
import { encodedResult, ok } from '../shared/http/response.ts';
import { apiEvent, call, invoke } from './support/api.ts';

/**
 * Issue 16 items 2 to 4: answers over 1 KB are compressed when the client accepts it (gzip, br),
 * each coding with its own ETag; the local gateway enforces API Gateway's and Lambda's limits; a
 * 60,000-entry price list reaches a client that accepts gzip in one answer under 1 MB, and a
 * client that accepts no compression gets a clear 406 instead of a failed invocation.
 */

const list = '/v2/customers/demo/pricelist';

describe('compressed answers', () => {
  it('answers gzip with Content-Encoding and Vary, the same JSON, and an ETag of its own', async () => {
    const plain = await call('GET', list);
    const gzip = await call('GET', list, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept-Encoding');
    expect(gzip.body).toEqual(plain.body);
    expect(gzip.wireBytes).toBeLessThan((plain.wireBytes ?? 0) / 4);
    expect(gzip.headers.etag).toBe(`${plain.headers.etag?.slice(0, -1)}-gzip"`);
    // The same representation, the same tag.
    expect((await call('GET', list, { headers: { 'Accept-Encoding': 'gzip' } })).headers.etag).toBe(gzip.headers.etag);
  });

  it('answers 304 only for the tag of the representation asked for', async () => {
    const gzip = await call('GET', list, { headers: { 'Accept-Encoding': 'gzip' } });
    const again = await call('GET', list, { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip.headers.etag as string } });
    expect(again.status).toBe(304);
    expect(again.headers).toMatchObject({ etag: gzip.headers.etag, vary: 'Accept-Encoding' });
    const plain = await call('GET', list, { headers: { 'If-None-Match': gzip.headers.etag as string } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it.each([
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['*', 'br'],
    ['br;q=0, *;q=0.1', 'gzip'],
    ['identity', undefined],
    ['gzip;q=0', undefined],
    ['', undefined],
  ])('chooses the coding for Accept-Encoding "%s": %s', async (accept, coding) => {
    const res = await call('GET', list, { headers: accept === '' ? {} : { 'Accept-Encoding': accept } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(coding);
    expect(res.body.prices.length).toBeGreaterThan(10);
  });

  it('compresses the zone file too, and leaves answers under 1 KB as they are', async () => {
    const file = await call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns', 'Accept-Encoding': 'gzip' } });
    expect(file.headers).toMatchObject({
      'content-encoding': 'gzip',
      'content-type': 'text/dns; charset=utf-8',
      vary: 'Accept, Accept-Encoding',
    });
    expect(file.raw).toMatch(/^; Zone demo-shop\.nl/);
    const small = await call('GET', '/v2/domains/unknown-domain.nl/zone', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.status).toBe(404);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBe('Accept-Encoding');
  });

  it('goes out as bytes over HTTP: the local server sends the compressed body as API Gateway would', async () => {
    const server = await startServer({ port: 0, gateway: createGateway() });
    try {
      const res = await fetch(`${server.url}${list}`, { headers: { Authorization: 'ApiKey demo-key', 'Accept-Encoding': 'gzip' } });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      // fetch decodes the coding itself, as a client does.
      expect(((await res.json()) as { prices: unknown[] }).prices.length).toBeGreaterThan(10);
    } finally {
      await server.close();
    }
  });
});

describe("API Gateway's and Lambda's limits in the local gateway", () => {
  const gateway = createGateway();

  it("answers a function result over Lambda's 6 MB response limit as API Gateway does: the DEFAULT_5XX answer (500)", () => {
    const prices = Array.from({ length: 60_000 }, (_, i) => ({
      product: `p${i}`,
      action: 'RENEW',
      currency: 'EUR',
      price: i,
      fromDate: '2026-01-01T00:00:00Z',
    }));
    const body = { prices, priceChanges: [], promos: [] };
    // A real 200 as the pipeline serializes it, 6.3 MB of JSON: over the limit once in the result.
    const result = encodedResult(ok(body), JSON.stringify(body), undefined, 'req-1');
    expect(Buffer.byteLength(JSON.stringify(result))).toBeGreaterThan(limits.responsePayloadBytes);
    const out = integrationResponse('pricelist', result, 'req-1');
    expect({ status: out.status, body: JSON.parse(out.body) }).toEqual({
      status: 500,
      body: { type: 'InternalError', message: 'An internal error occurred; it has been logged with the request id.', requestId: 'req-1' },
    });
    // Just under the limit, the same answer goes through.
    const under = encodedResult(
      ok({ prices: prices.slice(0, 40_000) }),
      JSON.stringify({ prices: prices.slice(0, 40_000) }),
      undefined,
      'req-2',
    );
    expect(integrationResponse('pricelist', under, 'req-2').status).toBe(200);
  });

  it('refuses a request body over 10 MB with 413, and an event over 6 MB (base64 body) as Lambda does: 500', async () => {
    const big = await gateway.handle({
      method: 'POST',
      url: '/v2/domains/a.com/transfer',
      headers: { authorization: 'ApiKey demo-key', 'content-type': 'application/json' },
      body: 'x'.repeat(limits.requestBodyBytes + 1),
    });
    expect({ status: big.status, type: JSON.parse(big.body).type }).toEqual({ status: 413, type: 'PayloadTooLarge' });
    // 4.8 MB of body is 6.4 MB once base64-encoded in the event: over Lambda's invocation limit.
    const over = await gateway.handle({
      method: 'POST',
      url: '/v2/domains/a.com/transfer',
      headers: { authorization: 'ApiKey demo-key', 'content-type': 'application/json' },
      body: `"${'x'.repeat(4_800_000)}"`,
    });
    expect({ status: over.status, type: JSON.parse(over.body).type }).toEqual({ status: 500, type: 'InternalError' });
  });

  it('hands request bodies to the functions base64-encoded, as API Gateway does with binary media types */*', async () => {
    const res = await call('POST', '/v2/domains/transfer-now.nl/transfer?quote=true', {
      body: { customer: 'demo', registrant: 'demo-registrant', authcode: 'NL-TRANSFER-2026' },
    });
    expect(res.status).toBe(200);
    expect(res.body.command).toBe('DomainTransfer');
  });
});

describe('a price list of 60,000 entries', () => {
  const customer = 'demo';
  const entries = bigListEntries;

  beforeAll(() => writeBigPriceList(customer), 300_000);

  const event = (headers: Record<string, string>) =>
    apiEvent({ method: 'GET', path: list, resource: '/v2/customers/{customer}/pricelist', pathParameters: { customer }, headers });

  it('comes back whole with Accept-Encoding: gzip, in one answer under 1 MB, through the real handler', async () => {
    const res = await invoke(pricelistHandler, event({ 'Accept-Encoding': 'gzip' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.wireBytes).toBeLessThan(1024 * 1024);
    expect(res.body.prices.filter((p: { product: string }) => p.product.startsWith('product_'))).toHaveLength(entries);
    expect(Buffer.byteLength(res.raw)).toBeGreaterThan(6 * 1024 * 1024);
  }, 120_000);

  it("prices a transfer from its product's entries alone, not the customer's 60,000 (the hot key fixed: docs/performance.md)", async () => {
    const read: { prefix: unknown; items: number }[] = [];
    const name = `count-price-reads-${crypto.randomUUID()}`;
    db().middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
        const items = (out.output as { Items?: unknown[] }).Items;
        if (values?.[':pk'] === 'PRICELIST#demo') read.push({ prefix: values[':prefix'], items: items?.length ?? 0 });
        return out;
      },
      { step: 'initialize', name },
    );
    try {
      const res = await call('POST', '/v2/domains/transfer-now.nl/transfer?quote=true', {
        body: { customer: 'demo', registrant: 'demo-registrant', authcode: 'NL-TRANSFER-2026' },
      });
      expect(res.status).toBe(200);
      expect(res.body.quote.billables[0]).toMatchObject({ product: 'domain_nl', action: 'TRANSFER' });
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(read).toEqual([{ prefix: 'PRODUCT#domain_nl#', items: expect.any(Number) }]);
    expect(read[0]?.items).toBeLessThan(10);
  });

  it('answers a client that accepts no compression 406 ResponseTooLarge, saying to accept gzip; never a failed invocation', async () => {
    const res = await invoke(pricelistHandler, event({}));
    expect(res.status).toBe(406);
    expect(res.body).toEqual({
      type: 'ResponseTooLarge',
      message: expect.stringMatching(
        /^This answer is \d+\.\d MB, more than the 6 MB an uncompressed answer may have\. Send `Accept-Encoding: gzip` \(or br\)/,
      ),
      requestId: res.headers['x-request-id'],
    });
  }, 120_000);
});

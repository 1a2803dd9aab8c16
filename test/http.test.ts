import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as pricelist } from '../functions/pricelist/handler.ts';
import { handler as providerInfo } from '../functions/provider-info/handler.ts';
import { createGateway, lambdaContext, proxyEvent } from '../infra/local/gateway.ts';
import { type LocalServer, startServer } from '../infra/local/server.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { methodsOf, routes } from '../shared/routes.ts';
import { apiEvent, call, invoke } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * HTTP done right (contract section 1): HEAD, If-None-Match, WWW-Authenticate, repeated query
 * parameters, the headers of every answer, refusals before any handler runs, bounded error bodies.
 */

/** One example URL of every GET route, as the demo data answers it with 200. */
const getUrls: Record<string, string> = {
  'provider-info': '/v2/providers/REGISTRY/sidn/info',
  pricelist: '/v2/customers/demo/pricelist?currency=USD',
  zone: '/v2/domains/demo-shop.nl/zone',
  'process-info': '/v2/processes/501/info',
  openapi: '/v2/openapi.json',
  process: '/v2/processes/501',
  processes: '/v2/processes?limit=5&total=true',
  'tld-info': '/v2/tlds/nl/info',
  provider: '/v2/providers/sidn',
  'provider-by-kind': '/v2/providers/REGISTRY/nominet',
  providers: '/v2/providers?limit=2',
  'ssl-products': '/v2/ssl/products',
  'ssl-product': '/v2/ssl/products/ssl_sectigo_dv',
  'exchange-rates-info': '/v2/exchangerates/USD',
  'exchange-rates-list': '/v2/exchangerates',
  certificate: '/v2/ssl/certificates/1001',
  'notification-poll': '/v2/customers/demo/notifications/poll',
  notifications: '/v2/customers/demo/notifications',
  webhook: '/v2/customers/demo/webhook',
  'webhook-dead-letters': '/v2/customers/demo/webhook/dead-letters',
  contacts: '/v2/customers/demo/contacts?limit=2',
  contact: '/v2/customers/demo/contacts/demo-registrant',
};

/** A URL the GET route answers 200 on: some need a transfer (and so its notification) or a webhook first. */
async function headUrl(id: string): Promise<string> {
  if (id === 'transfer-info') return transferInfoUrl();
  if (id === 'transfer-latest') return (await transferInfoUrl()).replace(/\/\d+$/, '');
  if (id.startsWith('notification')) await transferInfoUrl();
  if (id.startsWith('webhook')) await call('PUT', '/v2/customers/demo/webhook', { body: { url: 'https://hooks.example.net/head' } });
  if (id === 'certificate-download') {
    const names = ['www.demo-shop.nl'];
    const withCsr = await testCertificate({ processId: 79, csr: makeCsr({ cn: 'www.demo-shop.nl', san: names, key: 'p256' }) });
    return `/v2/ssl/certificates/${withCsr.id}/download?format=CSR`;
  }
  if (id === 'notification') {
    const listed = await call('GET', '/v2/customers/demo/notifications?limit=1');
    return `/v2/customers/demo/notifications/${listed.body.entities[0].id}`;
  }
  return getUrls[id] as string;
}

/** The transfer info of a transfer started for the purpose (the demo data holds none). */
let heads = 0;
async function transferInfoUrl(): Promise<string> {
  const name = `head-${process.pid}-${++heads}.com`;
  await sandboxDomain(name);
  const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
  return `/v2/domains/${name}/transfer/${started.headers['x-process-id']}`;
}

const withoutRequestId = (headers: Record<string, string>) => {
  const { 'x-request-id': _id, ...rest } = headers;
  return rest;
};

let server: LocalServer;
beforeAll(async () => {
  server = await startServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are on a socket (for what no HTTP client would send) and reads the answer. */
function rawExchange(text: string): Promise<RawAnswer> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (chunk) => {
      out += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

/** An HTTP request to the local server, the body streamed in chunks. */
function httpExchange(method: string, path: string, body?: { chunk: Buffer; times: number }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let out = '';
      res.on('data', (chunk) => {
        out += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: out }));
    });
    req.on('error', reject);
    const write = async () => {
      for (let i = 0; i < (body?.times ?? 0); i++) {
        if (!req.write(body?.chunk)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    };
    write().catch(reject);
  });
}

/** The refusal must be the contract's error body, its requestId the X-Request-Id header, with the headers of every answer. */
function expectContractRefusal(res: RawAnswer, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  const body = JSON.parse(res.body);
  expect(body).toEqual({ type, message: expect.any(String), requestId: res.headers['x-request-id'] });
}

describe('HEAD on every GET route (contract section 1)', () => {
  it.each(routes.filter((r) => r.method === 'GET').map((r) => [r.id]))(
    'answers HEAD on %s with the GET status and headers, no body',
    async (id) => {
      const url = await headUrl(id);
      const get = await call('GET', url);
      const head = await call('HEAD', url);
      expect(get.status).toBe(200);
      expect(head.status).toBe(200);
      expect(head.raw).toBe('');
      expect(withoutRequestId(head.headers)).toEqual(withoutRequestId(get.headers));
    },
  );

  it('answers HEAD with 304 for a matching If-None-Match, and with the error status and headers of a GET that fails', async () => {
    const get = await call('GET', '/v2/domains/demo-shop.nl/zone');
    const notModified = await call('HEAD', '/v2/domains/demo-shop.nl/zone', { headers: { 'If-None-Match': get.headers.etag as string } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(get.headers.etag);
    const missing = await call('HEAD', '/v2/domains/nowhere.nl/zone');
    const missingGet = await call('GET', '/v2/domains/nowhere.nl/zone');
    expect(missing.status).toBe(404);
    expect(missing.raw).toBe('');
    expect(withoutRequestId(missing.headers)).toEqual(withoutRequestId(missingGet.headers));
  });

  it('refuses HEAD without a key with the 401 status and headers, and no body', async () => {
    const res = await call('HEAD', '/v2/processes/501/info', { key: null });
    expect(res.status).toBe(401);
    expect(res.raw).toBe('');
    expect(res.headers['www-authenticate']).toBe('ApiKey');
  });

  it('serves HEAD over HTTP with the headers and no body', async () => {
    const res = await rawExchange('HEAD /v2/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
    expect(res.body).toBe('');
  });

  it('runs HEAD in the deployed handler as API Gateway passes it', async () => {
    const event = apiEvent({
      method: 'HEAD',
      path: '/v2/providers/REGISTRY/sidn/info',
      resource: '/v2/providers/REGISTRY/{name}/info',
      pathParameters: { name: 'sidn' },
    });
    const res = await invoke(providerInfo, event);
    expect(res.status).toBe(200);
    expect(res.raw).toBe('');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
  });

  it('lists HEAD in Allow beside GET, and refuses HEAD on a POST route with 405', async () => {
    const post = await call('POST', '/v2/providers/REGISTRY/sidn/info', { body: {} });
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await call('HEAD', '/v2/processes/501/resend');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('POST');
    // A path with a GET and a POST route lists them all.
    expect((await call('DELETE', '/v2/domains/demo-shop.nl/transfer')).headers.allow).toBe('POST, GET, HEAD');
    expect(methodsOf({ method: 'GET' })).toEqual(['GET', 'HEAD']);
  });
});

describe('If-None-Match with weak comparison (RFC 9110 13.1.2)', () => {
  it('answers 304 to the tag as W/"...", to *, and to a list holding it; 200 to other tags, weak or not', async () => {
    const { headers } = await call('GET', '/v2/providers/REGISTRY/nominet/info');
    const etag = headers.etag as string;
    for (const sent of [etag, `W/${etag}`, '*', `"other", W/${etag}`, ` ${etag} `]) {
      const res = await call('GET', '/v2/providers/REGISTRY/nominet/info', { headers: { 'If-None-Match': sent } });
      expect(res.status, sent).toBe(304);
      expect(res.raw).toBe('');
      expect(res.headers.etag).toBe(etag);
    }
    for (const sent of ['"other"', 'W/"other"', etag.slice(0, -2)]) {
      const res = await call('GET', '/v2/providers/REGISTRY/nominet/info', { headers: { 'If-None-Match': sent } });
      expect(res.status, sent).toBe(200);
    }
  });

  it('never answers 304 to * when there is nothing to match', async () => {
    const res = await call('GET', '/v2/domains/nowhere.nl/zone', { headers: { 'If-None-Match': '*' } });
    expect(res.status).toBe(404);
  });
});

describe('401 carries WWW-Authenticate: ApiKey', () => {
  it('from the gateway, for a missing or unknown key', async () => {
    for (const key of [null, 'no-such-key']) {
      const res = await call('GET', '/v2/providers/REGISTRY/sidn/info', { key });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('ApiKey');
      expect(res.body).toEqual({ type: 'AuthenticationError', message: expect.any(String), requestId: res.headers['x-request-id'] });
    }
  });

  it('from a handler that finds no caller in its event', async () => {
    const event = apiEvent({
      method: 'GET',
      path: '/v2/providers/REGISTRY/sidn/info',
      resource: '/v2/providers/REGISTRY/{name}/info',
      pathParameters: { name: 'sidn' },
      principal: null,
    });
    const res = await invoke(providerInfo, event);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('ApiKey');
  });
});

describe('a single-valued query parameter given twice is ambiguous (contract section 1)', () => {
  it('answers 400 ConstraintViolationException for ?currency=USD&currency=EUR', async () => {
    const res = await call('GET', '/v2/customers/demo/pricelist?currency=USD&currency=EUR');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'currency: must be given once, not 2 times',
      violations: [{ field: 'currency', message: 'must be given once, not 2 times' }],
      requestId: res.headers['x-request-id'],
    });
  });

  it('refuses ?quote=false&quote=true on a transfer and writes nothing', async () => {
    const res = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=false&quote=true', {
      body: { ...demoBody, authcode: 'COM-TRANSFER-2026' },
    });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([{ field: 'quote', message: 'must be given once, not 2 times' }]);
    expect((await readDomainCollection('transfer-wait.com')).lock).toBeUndefined();
  });

  it('reports it with the other violations, and ignores a parameter the route does not take, however often', async () => {
    const both = await call('GET', '/v2/customers/demo/pricelist?currency=USD&currency=EUR&currency=GBP');
    expect(both.body.violations).toEqual([
      { field: 'currency', message: 'must be given once, not 3 times' },
      { field: 'currency', message: 'must be EUR or USD', value: 'GBP' },
    ]);
    const ignored = await call('GET', '/v2/customers/demo/pricelist?x=1&x=2');
    expect(ignored.status).toBe(200);
  });

  it('reads the repetition from multiValueQueryStringParameters, as API Gateway passes it', async () => {
    const event = proxyEvent({
      method: 'GET',
      path: '/v2/customers/demo/pricelist',
      resource: '/v2/customers/{customer}/pricelist',
      headers: {},
      // API Gateway keeps the last value here, and every value in the multi-value map.
      query: { currency: 'EUR' },
      multiQuery: { currency: ['USD', 'EUR'] },
      pathParameters: { customer: 'demo' },
      body: null,
      authorizer: { customer: 'demo', user: 'alice', permissions: '', principalId: 'demo/alice' },
      requestId: crypto.randomUUID(),
    });
    const result = await pricelist(event, lambdaContext('pricelist', event.requestContext.requestId));
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).violations).toEqual([{ field: 'currency', message: 'must be given once, not 2 times' }]);
  });
});

describe('every answer carries nosniff and a Cache-Control that keeps it out of shared caches', () => {
  it('private, no-cache on a tagged answer (200 and 304 of a GET or HEAD); no-store on every other', async () => {
    const ok = await call('GET', '/v2/processes/501/info');
    const notModified = await call('GET', '/v2/processes/501/info', { headers: { 'If-None-Match': ok.headers.etag as string } });
    const head = await call('HEAD', '/v2/processes/501/info');
    for (const res of [ok, notModified, head]) {
      expect(res.headers['cache-control']).toBe('private, no-cache');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const others = [
      await call('GET', '/v2/processes/999999/info'),
      await call('GET', '/v2/customers/demo/pricelist?currency=GBP'),
      await call('GET', '/v2/providers/REGISTRY/sidn/info', { key: null }),
      await call('GET', '/v2/nothing/here'),
      await call('DELETE', '/v2/processes/501/info'),
      await transfer('transfer-wait.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' }, { quote: true }),
      await renew(1001, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }) }, { quote: true }),
    ];
    for (const res of others) {
      expect(res.headers['cache-control'], `${res.status} ${res.raw.slice(0, 80)}`).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('also on the refusals of the gateway: throttled (429)', async () => {
    const gateway = createGateway({ rateLimit: { rate: 1, burst: 1 } });
    const headers = { Authorization: 'ApiKey demo-key' };
    await gateway.handle({ method: 'GET', url: '/v2/providers/REGISTRY/sidn/info', headers });
    const throttled = await gateway.handle({ method: 'GET', url: '/v2/providers/REGISTRY/sidn/info', headers });
    expect(throttled.status).toBe(429);
    expect(throttled.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Retry-After': '1' });
    expect(JSON.parse(throttled.body).requestId).toBe(throttled.headers['X-Request-Id']);
  });
});

describe('refusals of the local HTTP layer are contract errors with a request id (contract section 1)', () => {
  it('a body over the 10 MiB payload limit: 413 PayloadTooLarge', async () => {
    const res = await httpExchange('POST', '/v2/domains/transfer-wait.com/transfer', { chunk: Buffer.alloc(1024 * 1024, 0x20), times: 11 });
    expectContractRefusal(res, 413, 'PayloadTooLarge');
  });

  it('an unknown method (FOO): 400 InvalidMessage', async () => {
    const res = await rawExchange('FOO /v2/processes/501/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expectContractRefusal(res, 400, 'InvalidMessage');
  });

  it('a 100 kB path: 431 InvalidMessage', async () => {
    const res = await rawExchange(`GET /v2/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expectContractRefusal(res, 431, 'InvalidMessage');
  });

  it('an unknown docs asset: 404 NotFound; another method on the docs: 405 with Allow', async () => {
    const missing = await rawExchange('GET /docs/nothing.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expectContractRefusal(missing, 404, 'NotFound');
    const post = await rawExchange('POST /docs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    expectContractRefusal(post, 405, 'MethodNotAllowed');
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});

describe('bounded error bodies', () => {
  it('answers a 63 KB body of 21,000 empty SANs with one small violation, the list length checked before its items', async () => {
    const body = { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }), san: Array.from({ length: 21_000 }, () => '') };
    expect(JSON.stringify(body).length).toBeGreaterThan(63_000);
    const res = await renew(1001, body, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'san: must have at most 250 items',
      violations: [{ field: 'san', message: 'must have at most 250 items' }],
      requestId: res.headers['x-request-id'],
    });
    expect(res.raw.length).toBeLessThan(300);
  });

  it('lists at most 50 violations and counts the rest', async () => {
    const dcv = Array.from({ length: 250 }, () => ({ commonName: '', type: 'POST' }));
    const res = await renew(1001, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }), dcv }, { quote: true });
    expect(res.status).toBe(400);
    expect(res.body.violations).toHaveLength(50);
    expect(res.body.violations[0]).toEqual({ field: 'dcv[0].commonName', message: 'must be 3 to 255 characters long', value: '' });
    // Three for each entry: the name's length and pattern, and the type.
    expect(res.body.omittedViolations).toBe(700);
    expect(res.body.message).toBe('dcv[0].commonName: must be 3 to 255 characters long (and 749 more)');
    expect(res.raw.length).toBeLessThan(8_000);
  });
});

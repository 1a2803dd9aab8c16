import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocument, type OpenApiDocument } from '../functions/openapi/document.ts';
import { handler as openapiHandler } from '../functions/openapi/handler.ts';
import { type LocalServer, startServer } from '../infra/local/server.ts';
import { errorBodies } from '../shared/http/api-docs.ts';
import { methodsOf, routes } from '../shared/routes.ts';
import { apiEvent, call, invoke } from './support/api.ts';
import { assertConforms } from './support/conformance.ts';

let doc: OpenApiDocument;
let server: LocalServer;

beforeAll(async () => {
  doc = await buildDocument();
  server = await startServer({ port: 0 });
});
afterAll(() => server.close());

type Op = Record<string, any>;
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op: op as Op })));

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (official schema, checked by a validator library)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one operation per route of the route table, and a HEAD beside every GET, and nothing else', () => {
    expect(
      operations()
        .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
        .sort(),
    ).toEqual(routes.flatMap((r) => methodsOf(r).map((m) => `${m} ${r.path}`)).sort());
    expect(
      operations()
        .map(({ op }) => op.operationId)
        .sort(),
    ).toEqual(
      [
        'certificate',
        'certificateDownload',
        'certificateDownloadHead',
        'certificateHead',
        'certificates',
        'certificatesHead',
        'contact',
        'contactCreate',
        'contactDelete',
        'contactHead',
        'contactPropertiesAdd',
        'contactPropertiesUpdate',
        'contactSplit',
        'contactUpdate',
        'contactValidate',
        'contacts',
        'contactsHead',
        'dnsZone',
        'dnsZoneCreate',
        'dnsZoneDelete',
        'dnsZoneHead',
        'dnsZoneKeyRollover',
        'dnsZoneRetrieve',
        'dnsZoneStats',
        'dnsZoneStatsHead',
        'dnsZoneUpdate',
        'dnsZones',
        'dnsZonesHead',
        'domain',
        'domainCheck',
        'domainCheckHead',
        'domainDelete',
        'domainHead',
        'domainRegister',
        'domainRenew',
        'domainRestore',
        'domainUpdate',
        'domains',
        'domainsHead',
        'exchangeRatesInfo',
        'exchangeRatesInfoHead',
        'exchangeRatesList',
        'exchangeRatesListHead',
        'health',
        'healthHead',
        'notification',
        'notificationAck',
        'notificationHead',
        'notificationPoll',
        'notificationPollHead',
        'notifications',
        'notificationsHead',
        'openapi',
        'openapiHead',
        'pricelist',
        'pricelistHead',
        'process',
        'processAckDsUpdate',
        'processCancel',
        'processHead',
        'processInfo',
        'processInfoHead',
        'processResend',
        'processes',
        'processesHead',
        'provider',
        'providerByKind',
        'providerByKindHead',
        'providerHead',
        'providerInfo',
        'providerInfoHead',
        'providers',
        'providersHead',
        'renew',
        'sslProduct',
        'sslProductHead',
        'sslProducts',
        'sslProductsHead',
        'tldInfo',
        'tldInfoHead',
        'transfer',
        'transferInfo',
        'transferInfoHead',
        'transferLatest',
        'transferLatestHead',
        'webhook',
        'webhookDeadLetters',
        'webhookDeadLettersHead',
        'webhookDelete',
        'webhookHead',
        'webhookPut',
        'webhookRedeliver',
        'webhookRotate',
        'zone',
        'zoneHead',
        'zoneUpdate',
      ].sort(),
    );
    const { get, head } = doc.paths['/v2/domains/{domainName}/zone'] as unknown as { get: Op; head: Op };
    for (const response of Object.values(head.responses) as Op[]) expect(response.content).toBeUndefined();
    expect(Object.keys(head.responses)).toEqual(Object.keys(get.responses));
  });

  it('describes the API-key scheme and applies it to every route but the public ones (the document itself, the health route)', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    for (const { path, op } of operations()) {
      if (routes.some((r) => r.auth === false && r.path === path)) expect(op.security).toEqual([]);
      else expect(op.security, path).toBeUndefined();
    }
  });

  it('publishes every error body of contract section 2 and uses them in the error responses', () => {
    for (const type of Object.keys(errorBodies)) {
      expect(doc.components.schemas[type], type).toMatchObject({
        type: 'object',
        required: expect.arrayContaining(['type', 'message', 'requestId']),
      });
    }
    const transfer = doc.paths['/v2/domains/{domainName}/transfer']?.post as Op;
    expect(Object.keys(transfer.responses).sort()).toEqual(['200', '202', '400', '401', '403', '406', '413', '415', '429', '500', '503']);
    const refs = (status: string) => JSON.stringify(transfer.responses[status].content['application/json'].schema);
    for (const type of [
      'ConstraintViolationException',
      'UnrecognizedPropertyException',
      'ValidationError',
      'BillableAcknowledgmentNeededException',
      'ObjectExists',
    ]) {
      expect(refs('400')).toContain(`#/components/schemas/${type}`);
    }
    expect(refs('415')).toContain('InvalidMessage');
    const zone = doc.paths['/v2/domains/{domainName}/zone']?.get as Op;
    expect(JSON.stringify(zone.responses['404'].content['application/json'].schema)).toContain('ObjectDoesNotExist');
  });

  it('documents the x-process-id, X-Request-Id, ETag, Retry-After, X-Exchange-Rate-Date, Cache-Control, X-Content-Type-Options and WWW-Authenticate headers', () => {
    const transfer = doc.paths['/v2/domains/{domainName}/transfer']?.post as Op;
    expect(transfer.responses['202'].headers['x-process-id'].required).toBe(true);
    expect(transfer.responses['503'].headers['Retry-After'].required).toBe(true);
    const renew = doc.paths['/v2/ssl/certificates/{certificateId}/renew']?.post as Op;
    expect(renew.responses['202'].headers['x-process-id'].required).toBe(true);
    const pricelist = doc.paths['/v2/customers/{customer}/pricelist']?.get as Op;
    expect(Object.keys(pricelist.responses['200'].headers).sort()).toEqual([
      'Cache-Control',
      'Content-Encoding',
      'ETag',
      'Vary',
      'X-Content-Type-Options',
      'X-Exchange-Rate-Date',
      'X-Request-Id',
    ]);
    expect(Object.keys(pricelist.responses['304'].headers)).toContain('ETag');
    expect(pricelist.responses['401'].headers['WWW-Authenticate'].required).toBe(true);
    for (const { op } of operations())
      for (const response of Object.values(op.responses) as Op[]) {
        for (const name of ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options']) expect(response.headers[name].required).toBe(true);
      }
  });

  it('carries examples from the demo data, and every example matches its schema', () => {
    const ajv = new Ajv2020({ strict: false });
    (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: 'https://x.invalid/doc.json', components: doc.components });
    const check = (schema: unknown, value: unknown, where: string) => {
      const fn = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://x.invalid/doc.json#/components/')));
      expect(fn(value), `${where}: ${JSON.stringify(fn.errors)}`).toBe(true);
    };
    let count = 0;
    for (const { path, method, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.example !== undefined) {
          check(p.schema, p.example, `${method} ${path} ${p.name}`);
          count++;
        }
      }
      for (const [name, ex] of Object.entries(op.requestBody?.content['application/json'].examples ?? {}) as [
        string,
        { value: unknown },
      ][]) {
        check(op.requestBody.content['application/json'].schema, ex.value, `${method} ${path} body ${name}`);
        count++;
      }
      for (const [status, response] of Object.entries(op.responses) as [string, Op][]) {
        for (const [type, media] of Object.entries(response.content ?? {}) as [string, Op][]) {
          for (const [name, ex] of Object.entries(media.examples ?? {}) as [string, { value: unknown }][]) {
            check(media.schema, ex.value, `${method} ${path} ${status} ${type} ${name}`);
            count++;
          }
        }
      }
    }
    expect(count).toBeGreaterThan(20);
  });

  it('shows the real provider info of sidn as its example', async () => {
    const op = doc.paths['/v2/providers/REGISTRY/{name}/info']?.get as Op;
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    expect(res.body).toEqual(op.responses['200'].content['application/json'].examples.sidn.value);
  });
});

describe('GET /v2/openapi.json', () => {
  it('is served without an API key, naming the host it was fetched from as its server', async () => {
    const res = await fetch(`${server.url}/v2/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('etag')).toMatch(/^".+"$/);
    const body = (await res.json()) as OpenApiDocument;
    expect(body).toEqual({ ...JSON.parse(JSON.stringify(doc)), servers: [{ ...(doc.servers as object[])[0], url: server.url }] });
  });

  it('answers through the gateway with and without a key alike, and 304 for its ETag', async () => {
    const anonymous = await call('GET', '/v2/openapi.json', { key: null });
    const withKey = await call('GET', '/v2/openapi.json');
    expect(anonymous.status).toBe(200);
    expect(withKey.body).toEqual(anonymous.body);
    const again = await call('GET', '/v2/openapi.json', { key: null, headers: { 'If-None-Match': anonymous.headers.etag as string } });
    expect(again.status).toBe(304);
  });
});

describe('the response conformance check', () => {
  it('refuses a body with a field the document does not have, a missing field, an undocumented status or header', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    const path = '/v2/providers/REGISTRY/sidn/info';
    await expect(assertConforms('GET', path, res)).resolves.toBeUndefined();
    await expect(assertConforms('GET', path, { ...res, body: { ...res.body, extra: 1 } })).rejects.toThrow(/additional properties/);
    await expect(assertConforms('GET', path, { ...res, body: { name: 'sidn' } })).rejects.toThrow(/metadata/);
    await expect(assertConforms('GET', path, { ...res, status: 202 })).rejects.toThrow(/status 202 is not documented/);
    await expect(assertConforms('GET', path, { ...res, headers: { ...res.headers, 'x-debug': '1' } })).rejects.toThrow(
      /header x-debug is not documented/,
    );
    const { etag: _etag, ...withoutEtag } = res.headers;
    await expect(assertConforms('GET', path, { ...res, headers: withoutEtag })).rejects.toThrow(/required header ETag/);
  });

  it('checks the 404/405 answers of unknown routes against NotFound and MethodNotAllowed', async () => {
    const notFound = await call('GET', '/v2/nothing-here');
    expect(notFound.status).toBe(404);
    const notAllowed = await call('DELETE', '/v2/domains/demo-shop.nl/zone');
    expect(notAllowed.status).toBe(405);
    await expect(
      assertConforms('DELETE', '/v2/domains/demo-shop.nl/zone', { ...notAllowed, body: { ...notAllowed.body, type: 'NotFound' } }),
    ).rejects.toThrow(/const/);
  });
});

describe('GET /v2/openapi.json: the servers it names', () => {
  /** The server URL the real handler answers for a request with these headers (and API Gateway's domain name). */
  async function servedUrl(headers: Record<string, string>, domainName?: string): Promise<string> {
    const event = apiEvent({ method: 'GET', path: '/v2/openapi.json', resource: '/v2/openapi.json', headers, principal: null });
    if (domainName) event.requestContext.domainName = domainName;
    const res = await invoke(openapiHandler, event);
    expect(res.status).toBe(200);
    return (res.body.servers as { url: string }[])[0]?.url as string;
  }

  it('names only http or https, whatever X-Forwarded-Proto says', async () => {
    expect(await servedUrl({ Host: 'api.example.com', 'X-Forwarded-Proto': 'javascript' })).toBe('https://api.example.com');
    expect(await servedUrl({ Host: 'api.example.com', 'X-Forwarded-Proto': 'data' })).toBe('https://api.example.com');
    expect(await servedUrl({ Host: 'api.example.com', 'X-Forwarded-Proto': 'HTTP' })).toBe('http://api.example.com');
    expect(await servedUrl({ Host: '127.0.0.1:3000' })).toBe('http://127.0.0.1:3000');
    expect(await servedUrl({ Host: '[::1]:8080' })).toBe('http://[::1]:8080');
  });

  it('names no host that is not a host name, and prefers the domain API Gateway names to the Host header', async () => {
    for (const host of ['javascript:alert(1)', 'evil.example/"><script>', 'a b', 'x@evil.example', '']) {
      expect(await servedUrl({ Host: host }), host).toBe((doc.servers as { url: string }[])[0]?.url);
    }
    expect(await servedUrl({ Host: 'evil.example' }, 'abc123.execute-api.eu-west-1.amazonaws.com')).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com',
    );
  });
});

import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { handler as providerInfo } from '../functions/provider-info/handler.ts';
import { db } from '../shared/db/client.ts';
import { jsonBody } from '../shared/http/json-body.ts';
import { endpoint } from '../shared/http/pipeline.ts';
import { Handle } from '../shared/schemas/primitives.ts';
import { toWireTime } from '../shared/time.ts';
import { apiEvent, call, demoKey, invoke, limitedKey } from './support/api.ts';

/** A POST endpoint built with the real pipeline, echoing what the use case receives. */
const echo = endpoint(
  {
    route: 'echo',
    body: jsonBody,
    request: v.object({
      path: v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, 'must be digits')) }),
      query: v.object({}),
      body: v.strictObject({
        customer: Handle,
        ns: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(4, 'must be 4 to 255 characters long'))), v.maxLength(10))),
        contacts: v.optional(v.array(v.strictObject({ role: v.picklist(['ADMIN', 'TECH']), handle: Handle }))),
        authcode: v.optional(v.pipe(v.string(), v.maxLength(5, 'must be at most 5 characters long'))),
      }),
    }),
  },
  async ({ input, principal }) => ({ input, principal }),
);

function post(body: string | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }, id = '7') {
  return invoke(
    echo,
    apiEvent({ method: 'POST', path: `/v2/echo/${id}`, resource: '/v2/echo/{id}', pathParameters: { id }, headers, body }),
  );
}

describe('request pipeline', () => {
  it('passes the validated, trimmed input and the principal to the use case', async () => {
    const res = await post(JSON.stringify({ customer: '  demo ', ns: [' ns1.example.com'] }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      input: { path: { id: '7' }, query: {}, body: { customer: 'demo', ns: ['ns1.example.com'] } },
      principal: { customer: 'demo', user: 'alice', permissions: ['DESIGNATED_AGENT'] },
    });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 415 InvalidMessage for a body that is not application/json', async () => {
    const res = await post('{"customer":"demo"}', { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      type: 'InvalidMessage',
      message: 'Content-Type must be application/json.',
      requestId: res.headers['x-request-id'],
    });
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await post('{"customer":"demo"}', { 'content-type': 'Application/JSON; charset=utf-8' });
    expect(res.status).toBe(200);
  });

  it('answers 413 PayloadTooLarge for a body over 64 KiB', async () => {
    const res = await post(JSON.stringify({ customer: 'demo', pad: 'x'.repeat(65 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body.type).toBe('PayloadTooLarge');
  });

  it.each([
    ['invalid JSON', '{"customer": "demo",'],
    ['an array', '[{"customer":"demo"}]'],
    ['a string', '"demo"'],
    ['null', 'null'],
    ['an empty body', ''],
    ['a __proto__ key', '{"customer":"demo","__proto__":{"admin":true}}'],
  ])('answers 400 InvalidMessage for %s', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('InvalidMessage');
    expect(res.body.message).toEqual(expect.any(String));
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('answers 400 UnrecognizedPropertyException naming the unknown property, also nested', async () => {
    const top = await post(JSON.stringify({ customer: 'demo', colour: 'blue' }));
    expect(top.status).toBe(400);
    expect(top.body).toEqual({
      type: 'UnrecognizedPropertyException',
      message: "Unrecognized property 'colour'.",
      property: 'colour',
      requestId: top.headers['x-request-id'],
    });
    const nested = await post(JSON.stringify({ customer: 'demo', contacts: [{ role: 'ADMIN', handle: 'demo-admin', extra: 1 }] }));
    expect(nested.body.property).toBe('contacts[0].extra');
  });

  it('reports every violation of path and body at once, with field paths', async () => {
    const res = await post(
      JSON.stringify({
        customer: 'x',
        ns: ['ns1.example.com', 'ok.example', 'a'],
        contacts: [{ role: 'OWNER', handle: 'demo-admin' }],
        authcode: 'secret-code',
      }),
      { 'Content-Type': 'application/json' },
      'abc',
    );
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    const fields = res.body.violations.map((x: { field: string }) => x.field).sort();
    expect(fields).toEqual(['authcode', 'contacts[0].role', 'customer', 'id', 'ns[2]']);
    expect(res.body.violations).toContainEqual({ field: 'ns[2]', message: 'must be 4 to 255 characters long', value: 'a' });
    expect(res.body.violations).toContainEqual({ field: 'customer', message: 'must be 3 to 40 characters long', value: 'x' });
    // Auth codes are never echoed back.
    expect(JSON.stringify(res.body)).not.toContain('secret-code');
  });

  it('says "is required" for a missing required field', async () => {
    const res = await post(JSON.stringify({}));
    expect(res.body.violations).toEqual([{ field: 'customer', message: 'is required' }]);
  });

  it('answers 401 when the event carries no authorizer principal', async () => {
    const res = await invoke(
      echo,
      apiEvent({ method: 'POST', path: '/v2/echo/1', resource: '/v2/echo/{id}', pathParameters: { id: '1' }, body: '{}', principal: null }),
    );
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('AuthenticationError');
  });

  it('answers 503 ProviderUnavailable with Retry-After when DynamoDB throttles', async () => {
    await call('GET', '/v2/providers/REGISTRY/sidn/info'); // the key's authorization is now cached, as in API Gateway
    const client = db();
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
          name: 'ThrottlingException',
          $fault: 'client',
          $metadata: {},
        });
      },
      { step: 'initialize', name: 'inject-throttling' },
    );
    try {
      const res = await call('GET', '/v2/providers/REGISTRY/verisign/info', { key: demoKey });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.type).toBe('ProviderUnavailable');
      expect(res.raw).not.toContain('throughput');
    } finally {
      client.middlewareStack.remove('inject-throttling');
    }
  });
});

describe('gateway behaviour (route table, authorizer)', () => {
  it('answers 503 ProviderUnavailable when the authorizer cannot read the key store', async () => {
    const client = db();
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server', $metadata: {} });
      },
      { step: 'initialize', name: 'inject-failure' },
    );
    try {
      const res = await call('GET', '/v2/providers/REGISTRY/sidn/info', { key: limitedKey });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({
        type: 'ProviderUnavailable',
        message: 'Authentication is temporarily unavailable; retry later.',
        requestId: res.headers['x-request-id'],
      });
    } finally {
      client.middlewareStack.remove('inject-failure');
    }
  });

  it.each([
    ['no Authorization header', null, undefined],
    ['another scheme', null, 'Bearer demo-key'],
    ['an empty key', null, 'ApiKey '],
    ['a key with spaces', null, 'ApiKey demo key'],
    ['an unknown key', 'unknown-key-123', undefined],
  ])('answers 401 AuthenticationError for %s', async (_name, key, header) => {
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info', {
      key: key as string | null,
      headers: header ? { Authorization: header } : {},
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      type: 'AuthenticationError',
      message: 'Missing, malformed or unknown API key. Send the header `Authorization: ApiKey <key>`.',
      requestId: res.headers['x-request-id'],
    });
  });

  it('answers 404 NotFound for an unknown route, with a request id', async () => {
    const res = await call('GET', '/v2/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ type: 'NotFound', message: 'No route for this path.', requestId: res.headers['x-request-id'] });
  });

  it('answers 405 MethodNotAllowed with Allow for a known path and another method', async () => {
    const res = await call('POST', '/v2/providers/REGISTRY/sidn/info', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body.type).toBe('MethodNotAllowed');
  });

  it('accepts a trailing slash', async () => {
    const res = await call('GET', '/v2/providers/REGISTRY/sidn/info/');
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('sidn');
  });

  it('validates path parameters with the contract error body', async () => {
    const res = await call('GET', `/v2/providers/REGISTRY/${encodeURIComponent('bad name!')}/info`);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.violations).toEqual([{ field: 'name', message: 'may contain only letters, digits and - _ .', value: 'bad name!' }]);
  });

  it('sends a strong ETag and answers 304 without a body to If-None-Match', async () => {
    const first = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await call('GET', '/v2/providers/REGISTRY/sidn/info', { headers: { 'If-None-Match': first.headers.etag as string } });
    expect(again.status).toBe(304);
    expect(again.raw).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const other = await call('GET', '/v2/providers/REGISTRY/verisign/info', { headers: { 'If-None-Match': first.headers.etag as string } });
    expect(other.status).toBe(200);
  });

  it('runs the same handler module the Lambda runs', async () => {
    const direct = await invoke(
      providerInfo,
      apiEvent({
        method: 'GET',
        path: '/v2/providers/REGISTRY/sidn/info',
        resource: '/v2/providers/REGISTRY/{name}/info',
        pathParameters: { name: 'SIDN' },
      }),
    );
    const viaGateway = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    expect(direct.body).toEqual(viaGateway.body);
  });
});

describe('wire formats', () => {
  it('writes timestamps as yyyy-MM-ddTHH:mm:ssZ in UTC', () => {
    expect(toWireTime(new Date('2026-11-21T21:16:00.123+01:00'))).toBe('2026-11-21T20:16:00Z');
    expect(() => toWireTime('not a date')).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { createGateway } from '../infra/local/gateway.ts';
import { jsonDepthExceeds } from '../shared/http/json-depth.ts';
import { maxBodyDepth } from '../shared/http/pipeline.ts';
import { call } from './support/api.ts';
import { testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';

/** What the fuzz suite found, pinned as plain examples (docs/reliability.md lists them). */

const transferBody = { customer: 'demo', registrant: 'demo-registrant', authcode: 'COM-TRANSFER-2026' };

describe('fuzz findings', () => {
  it('refuses an array where an object belongs, as a type violation of that field', async () => {
    const empty = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', { body: { ...transferBody, zone: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      type: 'ConstraintViolationException',
      message: 'zone: must be an object',
      violations: [{ field: 'zone', message: 'must be an object' }],
      requestId: empty.headers['x-request-id'],
    });
    const listed = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: { ...transferBody, contacts: [['ADMIN', 'demo-admin']] },
    });
    expect(listed.body.violations).toEqual([{ field: 'contacts[0]', message: 'must be an object' }]);
    const certificate = await testCertificate({ product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com'] });
    const renew = await call('POST', `/v2/ssl/certificates/${certificate.id}/renew?quote=true`, {
      body: { period: 12, csr: makeCsr({ cn: 'demo-secure.com' }), approver: ['Anna'], dcv: [[]], billables: [[]] },
    });
    expect(renew.body.violations).toEqual([
      { field: 'approver', message: 'must be an object' },
      { field: 'dcv[0]', message: 'must be an object' },
      { field: 'billables[0]', message: 'must be an object' },
    ]);
  });

  it('refuses a body nested deeper than the limit with 400, at any depth up to the size limit', async () => {
    for (const depth of [maxBodyDepth + 1, 3_000, 32_000]) {
      const body = `{"customer":"demo","registrant":"demo-registrant","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const res = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
        body,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(res.status, String(depth)).toBe(400);
      expect(res.body).toMatchObject({
        type: 'InvalidMessage',
        message: `The request body nests arrays and objects more than ${maxBodyDepth} levels deep.`,
      });
    }
    // Within the limit the body is read as usual: here an unknown property.
    const shallow = `{"customer":"demo","registrant":"demo-registrant","x":${'['.repeat(maxBodyDepth - 1)}${']'.repeat(maxBodyDepth - 1)}}`;
    const res = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: shallow,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: 'x' });
  });

  it('counts nesting outside strings only', () => {
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[[[[["}', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":"\\\\",  "b":[[]]}', 2)).toBe(true);
  });

  it('names an unknown property called "" as such', async () => {
    const res = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: '{"customer":"demo","registrant":"demo-registrant","":1}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: '' });
  });

  it('refuses prototype keys anywhere in a body before anything reads it', async () => {
    const res = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: '{"customer":"demo","registrant":"demo-registrant","zone":{"__proto__":{"service":"PREMIUM"}}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'InvalidMessage', message: 'Forbidden key in JSON body.' });
    expect(({} as Record<string, unknown>).service).toBeUndefined();
  });

  it("reads an escaped key as written, whatever another caller's body held before (V8's escaped-key bug, nodejs/node#63785)", async () => {
    const post = (body: string, key?: string) =>
      call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
        body,
        headers: { 'Content-Type': 'application/json' },
        ...(key ? { key } : {}),
      });
    const head = '{"customer":"demo","registrant":"demo-registrant","authcode":"COM-TRANSFER-2026","zone":{"dnssec":false,';
    // Another customer's body with the keys `servic\` and `\` (refused: unknown properties) ...
    expect((await post(`${head}"servic\\\\":1}}`, 'other-key')).body.type).toBe('UnrecognizedPropertyException');
    expect((await post(`${head}"\\\\":1}}`, 'other-key')).body.type).toBe('UnrecognizedPropertyException');
    // ... leaves the keys "service" written as servic\u0065, and the one-character key \uddc7, read as written.
    const escaped = await post(`${head}"servic\\u0065":"BASIC"}}`);
    expect(escaped.status).toBe(200);
    expect(escaped.body.plan.zone).toMatchObject({ service: 'BASIC' });
    const unknown = await post(`${head}"\\uddc7":1}}`);
    expect(unknown.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: 'zone.\uddc7' });
    // Keys stay plain properties: an escaped __proto__ is still refused.
    const proto = await post(`${head}"\\u005f_proto__":{"service":"PREMIUM"}}}`);
    expect(proto.body).toMatchObject({ type: 'InvalidMessage', message: 'Forbidden key in JSON body.' });
  });

  it('the local gateway takes query parameters and headers named like Object.prototype members', async () => {
    const gateway = createGateway();
    for (const query of ['constructor=x', '__proto__=x', 'toString=1&hasOwnProperty=2', 'currency=usd&constructor=a&constructor=b']) {
      const res = await gateway.handle({
        method: 'GET',
        url: `/v2/customers/demo/pricelist?${query}`,
        headers: { authorization: 'ApiKey demo-key' },
      });
      expect(res.status, query).toBe(200);
    }
    const res = await gateway.handle({
      method: 'GET',
      url: '/v2/customers/demo/pricelist',
      headers: Object.fromEntries([
        ['authorization', 'ApiKey demo-key'],
        ['__proto__', 'x'],
        ['constructor', 'y'],
      ]),
    });
    expect(res.status).toBe(200);
  });

  it('the local gateway answers 400 to a request target no URL parser takes, instead of failing', async () => {
    const res = await createGateway().handle({ method: 'GET', url: '/\\\ud920x', headers: { authorization: 'ApiKey demo-key' } });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      type: 'InvalidMessage',
      message: 'The request could not be processed.',
      requestId: res.headers['X-Request-Id'],
    });
  });
});

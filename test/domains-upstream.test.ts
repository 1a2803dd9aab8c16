import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { call } from './support/api.ts';
import { readyWithinMs, startUpstream, type Upstream, upstreamGet } from './support/upstream.ts';

/**
 * A domain update through an upstream Realtime Register account (`REGISTRY_GATEWAY=rtr`), against a
 * second instance of this service's sandbox started here (test/upstream-registry.test.ts says how):
 * the upstream receives the same update for its copy of the domain (its demo account holds the
 * same demo domains), and its refusals come back in our words.
 */

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
});

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream(inject('dynamodbEndpoint'));
  process.env.REGISTRY_GATEWAY = 'rtr';
  process.env.RTR_API_URL = upstream.proxyUrl;
  process.env.RTR_API_KEY = 'demo-key';
  process.env.RTR_CUSTOMER = 'demo';
  process.env.RTR_REGISTRIES = 'sidn,verisign,nominet';
  // Generous: the upstream shares a busy machine; its timeouts are upstream-registry.test.ts's subject.
  process.env.RTR_TIMEOUT_MS = '20000';
}, readyWithinMs + 10_000);

afterAll(async () => {
  await upstream?.stop();
});

const update = (domainName: string, body: unknown) => call('POST', `/v2/domains/${domainName}/update`, { body });

describe('an update through the upstream account', () => {
  it('forwards the name servers and the lock; the upstream holds them for its copy', async () => {
    resetCircuit();
    const ns = ['ns1.upstream-test.example', 'ns2.upstream-test.example'];
    const res = await update('demo-shop.nl', { ns, status: ['OK', 'CLIENT_TRANSFER_PROHIBITED'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(upstream.seen).toContain('POST /v2/domains/demo-shop.nl/update');
    const held = await upstreamGet(upstream, '/v2/domains/demo-shop.nl');
    expect(held.body.ns).toEqual(ns);
    expect(held.body.status).toEqual(['CLIENT_TRANSFER_PROHIBITED']);
    expect((await call('GET', '/v2/domains/demo-shop.nl')).body).toMatchObject({ ns, status: ['CLIENT_TRANSFER_PROHIBITED'] });
  });

  it('has the upstream make a new auth code and keeps the one it made', async () => {
    resetCircuit();
    const res = await update('demo-secure.com', { authcode: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const upstreamCode = (await upstreamGet(upstream, '/v2/domains/demo-secure.com')).body.authcode;
    expect(upstreamCode).toMatch(/^[A-Za-z0-9]{16}$/);
    expect((await call('GET', '/v2/domains/demo-secure.com')).body.authcode).toBe(upstreamCode);
  });

  it('asks the upstream whether a name is free, passing renewPrice', async () => {
    resetCircuit();
    const res = await call('GET', '/v2/domains/register-premium.com/check?renewPrice=true');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ available: true, premium: true, currency: 'EUR', price: 120000, renewPrice: 120000 });
    expect(upstream.seen).toContain('GET /v2/domains/register-premium.com/check?renewPrice=true');
  });

  it("answers the upstream's refusal in our words and records nothing", async () => {
    resetCircuit();
    // The upstream's copy is frozen; ours does not know it: the upstream refuses.
    const frozen = await fetch(new URL('/v2/domains/demo-secure.com/update', upstream.url), {
      method: 'POST',
      headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: ['CLIENT_UPDATE_PROHIBITED'] }),
    });
    expect(frozen.status).toBe(200);
    const before = (await call('GET', '/v2/domains/demo-secure.com')).body;
    const res = await update('demo-secure.com', { ns: ['ns1.refused.example', 'ns2.refused.example'] });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ObjectStatusProhibitsOperation');
    expect((await call('GET', '/v2/domains/demo-secure.com')).body).toEqual(before);
  });
});

import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as authorizer } from '../functions/authorizer/handler.ts';
import { createGateway, type LocalResponse } from '../infra/local/gateway.ts';
import { createRateLimiter, defaultLocalRateLimit, rateLimitFromEnv } from '../infra/local/rate-limit.ts';
import { startServer } from '../infra/local/server.ts';
import { registerUsageKey, usageKeyName } from '../infra/usage-plan-keys.ts';
import { hashApiKey, sameHash, usageIdentifier } from '../shared/auth/api-keys.ts';
import { unknownKeyCacheSeconds } from '../shared/auth/authenticate.ts';
import { demoKey, limitedKey, otherKey } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';
import { snapshotTable } from './support/table-writes.ts';

/**
 * Abuse: per-key rate limits (the local gateway's 429, the authorizer's usage identifier for the
 * deployed usage plan, registering keys in the plan), cheap refusal of repeated bad keys, and keys
 * stored only as hashes.
 */

const get = (gateway: ReturnType<typeof createGateway>, key: string, url = '/v2/providers/REGISTRY/sidn/info') =>
  gateway.handle({ method: 'GET', url, headers: { Authorization: `ApiKey ${key}` } });

const body = (res: LocalResponse) => JSON.parse(res.body) as Record<string, unknown>;

describe('per-key rate limit of the local gateway', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['LOCAL_RATE_LIMIT_RPS', 'LOCAL_RATE_LIMIT_BURST']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('answers 429 TooManyRequests with Retry-After past the burst, per key, and lets the key through again once refilled', async () => {
    // The throttle's clock stands still but for the 300 ms moved below, however slow the machine.
    let now = Date.now();
    const gateway = createGateway({ rateLimit: { rate: 4, burst: 3 }, clock: () => now });
    const first = await Promise.all([1, 2, 3].map(() => get(gateway, demoKey)));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await get(gateway, demoKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['Retry-After']).toBe('1');
    expect(body(refused)).toEqual({
      type: 'TooManyRequests',
      message: 'Too many requests for this API key; retry later.',
      requestId: refused.headers['X-Request-Id'],
    });
    // Another key of the same customer, and another customer's key, have buckets of their own.
    expect((await get(gateway, limitedKey)).status).toBe(200);
    expect((await get(gateway, otherKey)).status).toBe(200);
    now += 300; // 4 tokens a second: one is back
    expect((await get(gateway, demoKey)).status).toBe(200);
    expect((await get(gateway, demoKey)).status).toBe(429);
  });

  it('reads the limit from LOCAL_RATE_LIMIT_RPS and LOCAL_RATE_LIMIT_BURST, and the HTTP server answers 429 over a socket', async () => {
    process.env.LOCAL_RATE_LIMIT_RPS = '0.5';
    process.env.LOCAL_RATE_LIMIT_BURST = '2';
    const server = await startServer({ port: 0 });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        last = await fetch(`${server.url}/v2/providers/REGISTRY/sidn/info`, { headers: { Authorization: `ApiKey ${demoKey}` } });
        statuses.push(last.status);
        await last.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(last?.headers.get('retry-after')).toBe('2'); // one token every 2 s
      expect(last?.headers.get('content-type')).toBe('application/json; charset=utf-8');
    } finally {
      await server.close();
    }
  });

  it('has generous defaults and refuses nonsense settings', () => {
    expect(rateLimitFromEnv({})).toEqual(defaultLocalRateLimit);
    expect(defaultLocalRateLimit).toEqual({ rate: 1000, burst: 2000 });
    expect(rateLimitFromEnv({ LOCAL_RATE_LIMIT_RPS: '5' })).toEqual({ rate: 5, burst: 10 });
    expect(rateLimitFromEnv({ LOCAL_RATE_LIMIT_RPS: '5', LOCAL_RATE_LIMIT_BURST: '1' })).toEqual({ rate: 5, burst: 1 });
    expect(() => rateLimitFromEnv({ LOCAL_RATE_LIMIT_RPS: 'fast' })).toThrow(/LOCAL_RATE_LIMIT_RPS must be a positive number/);
    expect(() => rateLimitFromEnv({ LOCAL_RATE_LIMIT_BURST: '0' })).toThrow(/LOCAL_RATE_LIMIT_BURST/);
  });

  it('refills a bucket at the rate and never above the burst', () => {
    let now = 0;
    const limiter = createRateLimiter({ rate: 2, burst: 2 }, () => now);
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([0, 0, 1]);
    now = 10_000;
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([0, 0, 1]);
    now = 10_500;
    expect(limiter.take('k')).toBe(0);
  });
});

describe("the authorizer names each key's usage-plan key", () => {
  const event = (key: string): APIGatewayTokenAuthorizerEvent => ({
    type: 'TOKEN',
    authorizationToken: `ApiKey ${key}`,
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/sandbox/GET/v2/processes/1/info',
  });

  it('answers usageIdentifierKey, derived from the stored hash, different per key and never the key or its hash', async () => {
    const demo = await authorizer(event(demoKey));
    const limited = await authorizer(event(limitedKey));
    expect(demo.usageIdentifierKey).toBe(usageIdentifier(hashApiKey(demoKey)));
    expect(demo.usageIdentifierKey).toMatch(/^[0-9a-f]{64}$/);
    expect(limited.usageIdentifierKey).not.toBe(demo.usageIdentifierKey);
    expect(demo.usageIdentifierKey).not.toBe(hashApiKey(demoKey));
    expect(JSON.stringify(demo)).not.toContain(demoKey);
  });

  it('registers a key in the usage plan with that value, and a second run changes nothing', async () => {
    const sent: { command: string; input: Record<string, unknown> }[] = [];
    const existing: { id: string; name: string }[] = [];
    const client = new APIGatewayClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    // API Gateway itself, at the SDK boundary: answers the three calls as the service would.
    client.middlewareStack.add(
      () => async (args) => {
        const input = args.input as Record<string, unknown>;
        if ('nameQuery' in input) {
          sent.push({ command: 'GetApiKeys', input });
          return { output: { items: existing.filter((k) => k.name === input.nameQuery), $metadata: {} }, response: {} };
        }
        if ('value' in input) {
          sent.push({ command: 'CreateApiKey', input });
          existing.push({ id: 'k-1', name: String(input.name) });
          return { output: { id: 'k-1', $metadata: {} }, response: {} };
        }
        sent.push({ command: 'CreateUsagePlanKey', input });
        if (sent.filter((s) => s.command === 'CreateUsagePlanKey').length > 1) {
          throw Object.assign(new Error('Usage plan key already exists'), { name: 'ConflictException', $fault: 'client', $metadata: {} });
        }
        return { output: { id: 'k-1', $metadata: {} }, response: {} };
      },
      { step: 'initialize', name: 'api-gateway-stand-in' },
    );
    const owner = { keyHash: hashApiKey('rrk_example'), customer: 'demo', user: 'dave' };
    expect(await registerUsageKey(client, 'plan-1', owner)).toEqual({
      name: usageKeyName(owner),
      apiKeyId: 'k-1',
      created: true,
      addedToPlan: true,
    });
    expect(sent.map((s) => s.command)).toEqual(['GetApiKeys', 'CreateApiKey', 'CreateUsagePlanKey']);
    expect(sent[1]?.input).toMatchObject({
      name: `registrar-demo-dave-${owner.keyHash.slice(0, 12)}`,
      value: usageIdentifier(owner.keyHash),
      enabled: true,
    });
    expect(sent[2]?.input).toEqual({ usagePlanId: 'plan-1', keyId: 'k-1', keyType: 'API_KEY' });
    expect(JSON.stringify(sent)).not.toContain('rrk_example');
    expect(await registerUsageKey(client, 'plan-1', owner)).toEqual({
      name: usageKeyName(owner),
      apiKeyId: 'k-1',
      created: false,
      addedToPlan: false,
    });
    expect(sent.map((s) => s.command).slice(3)).toEqual(['GetApiKeys', 'CreateUsagePlanKey']);
  });
});

describe('bad keys are cheap to refuse', () => {
  it('refuses a malformed Authorization header without any table read', async () => {
    const gateway = createGateway();
    for (const header of ['Bearer x', 'ApiKey', 'ApiKey a b', `ApiKey ${'a'.repeat(300)}`, 'ApiKey ключ', '']) {
      const { result, calls } = await recordTableCalls(() =>
        gateway.handle({ method: 'GET', url: '/v2/processes/501/info', headers: { Authorization: header } }),
      );
      expect(result.status, header).toBe(401);
      expect(calls, header).toEqual([]);
    }
  });

  it(`reads the table once for a repeated unknown key, then refuses it from memory for ${unknownKeyCacheSeconds} s`, async () => {
    const unknown = `unknown-${crypto.randomUUID()}`;
    const { result, calls } = await recordTableCalls(async () => {
      const answers: number[] = [];
      // A fresh gateway per request: no authorizer result cache in front (API Gateway caches no 401s either).
      for (let i = 0; i < 20; i++) answers.push((await get(createGateway(), unknown)).status);
      return answers;
    });
    expect(result).toEqual(Array(20).fill(401));
    expect(calls).toEqual(['GetItemCommand']);
    // A known key still reads its record (and is let in).
    const known = await recordTableCalls(() => get(createGateway(), otherKey));
    expect(known.result.status).toBe(200);
    expect(known.calls[0]).toBe('GetItemCommand');
  });
});

describe('API keys are stored only as hashes and compared in constant time', () => {
  it('no item of the table holds a clear API key', async () => {
    const items = [...(await snapshotTable()).values()].join('\n');
    for (const key of [demoKey, limitedKey, otherKey]) {
      expect(items).not.toContain(`"${key}"`);
      expect(items).toContain(hashApiKey(key));
    }
  });

  it('compares hashes with timingSafeEqual semantics: equal only for the same non-empty hash', () => {
    const hash = hashApiKey(demoKey);
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hashApiKey(otherKey))).toBe(false);
    expect(sameHash(hash, hash.slice(0, 62))).toBe(false);
    expect(sameHash('', '')).toBe(false);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { call, limitedKey, otherKey } from './support/api.ts';
import { sandboxDomain } from './support/transfer.ts';

vi.hoisted(() => {
  // A small limit, so a test reaches it; the default (100 a minute) is documented.
  process.env.DOMAIN_CHECK_LIMIT = '8';
});

const check = (domainName: string, query = '', key?: string) => call('GET', `/v2/domains/${domainName}/check${query}`, key ? { key } : {});

describe('GET /v2/domains/{domainName}/check', () => {
  it('answers a free name available, a reserved one with its reason, and the premium one with its prices', async () => {
    expect((await check('surely-free-name.com')).body).toEqual({ available: true, premium: false });
    expect((await check('register-reserved.com')).body).toEqual({ available: false, reason: 'reserved' });
    const premium = await check('register-premium.com', '?renewPrice=true');
    expect(premium.status).toBe(200);
    expect(premium.body).toEqual({ available: true, premium: true, currency: 'EUR', price: 120000, renewPrice: 120000 });
    expect((await check('register-premium.com')).body.renewPrice).toBeUndefined();
  });

  it('answers a name registered by anyone, here or at the registry, unavailable', async () => {
    expect((await check('other-site.com')).body).toEqual({ available: false, reason: 'registered' });
    await sandboxDomain('held-at-registry.com');
    expect((await check('held-at-registry.com')).body).toEqual({ available: false, reason: 'registered', premium: false });
  });

  it('refuses an extension no registry serves and a bad name with 400', async () => {
    const tld = await check('name.invalidtld');
    expect(tld.status).toBe(400);
    expect(tld.body.type).toBe('ValidationError');
    expect((await check('bad_name.com')).status).toBe(400);
  });

  it('is rate limited per key: 429 with Retry-After past the limit, and another key is not slowed', async () => {
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await check(`limited-${i}.com`, '', limitedKey));
    expect(answers.slice(0, 8).every((a) => a.status === 200)).toBe(true);
    const refused = answers[8];
    expect(refused?.status).toBe(429);
    expect(refused?.body.type).toBe('TooManyRequests');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await check('free-for-other.com', '', otherKey)).status).toBe(200);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { getWebhook } from '../shared/db/repositories/webhooks.ts';
import { signingSecrets, type WebhookRecord } from '../shared/model/webhook.ts';
import { deliverableAddress, endpointUrlProblem, isPublicAddress } from '../shared/notifications/endpoint-address.ts';
import { openSecret } from '../shared/notifications/secret-box.ts';
import { nonPublicHosts, publicHosts } from './support/addresses.ts';
import { call, limitedKey, otherKey } from './support/api.ts';

/** The webhook endpoint's management: PUT (secret once), GET (never the secret), DELETE, rotate. */

const hook = '/v2/customers/demo/webhook';

afterEach(() => {
  delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
});

describe('PUT/GET/DELETE /v2/customers/{customer}/webhook, POST .../rotate', () => {
  it('answers the secret once on registration, never on GET or on a move to a new URL', async () => {
    await call('DELETE', hook);
    const created = await call('PUT', hook, { body: { url: 'https://hooks.example.net/registrar' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      url: 'https://hooks.example.net/registrar',
      status: 'ENABLED',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdDate: expect.any(String),
      updatedDate: expect.any(String),
      secretCreatedDate: expect.any(String),
    });
    const shown = await call('GET', hook);
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBeUndefined();
    expect(shown.raw).not.toContain(created.body.secret);
    const moved = await call('PUT', hook, { body: { url: 'https://hooks.example.net/v2' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({
      ...created.body,
      secret: undefined,
      url: 'https://hooks.example.net/v2',
      updatedDate: expect.any(String),
    });
    expect(moved.raw).not.toContain('whsec_');
  });

  it('rotates: a new secret once, the old one signing a day more; a second rotation within that day is refused', async () => {
    await call('DELETE', hook);
    const first = (await call('PUT', hook, { body: { url: 'https://hooks.example.net/r' } })).body.secret;
    const rotated = await call('POST', `${hook}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first);
    const expires = Date.parse(rotated.body.previousSecretExpiresDate) - Date.parse(rotated.body.secretCreatedDate);
    expect(expires).toBe(86_400_000);
    expect((await call('GET', hook)).body.previousSecretExpiresDate).toBe(rotated.body.previousSecretExpiresDate);
    const again = await call('POST', `${hook}/rotate`);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ type: 'ObjectStatusProhibitsOperation' });
    expect(again.body.message).toContain(rotated.body.previousSecretExpiresDate);
    expect(again.raw).not.toContain('whsec_');
  });

  it('ten concurrent rotations: exactly one answers a secret, and both it and the one before sign what follows', async () => {
    await call('DELETE', hook);
    const first = (await call('PUT', hook, { body: { url: 'https://hooks.example.net/c' } })).body.secret as string;
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', `${hook}/rotate`)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((a) => a.status !== 200)) {
      expect([400, 503]).toContain(lost.status);
      expect(lost.raw).not.toContain('whsec_');
    }
    const stored = await getWebhook('demo');
    const signing = signingSecrets(stored as WebhookRecord, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    // Stored sealed: opened as delivery opens them.
    expect((await Promise.all(signing.map((sealed) => openSecret('demo', sealed)))).map((o) => o.secret)).toEqual([
      won[0]?.body.secret,
      first,
    ]);
  });

  it('removes the endpoint (204), then answers 404 to GET, DELETE and rotate', async () => {
    await call('PUT', hook, { body: { url: 'https://hooks.example.net/x' } });
    expect((await call('DELETE', hook)).status).toBe(204);
    for (const [method, path] of [
      ['GET', hook],
      ['DELETE', hook],
      ['POST', `${hook}/rotate`],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.type).toBe('ObjectDoesNotExist');
    }
  });

  it("refuses another customer's handle with 403 on every method, before anything is read or written", async () => {
    for (const [method, body] of [
      ['PUT', { url: 'https://hooks.example.net/x' }],
      ['GET', undefined],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, hook, { key: otherKey, ...(body ? { body } : {}) });
      expect(res.status, method).toBe(403);
      expect(res.body.type).toBe('AuthorizationError');
    }
    expect((await call('POST', `${hook}/rotate`, { key: otherKey })).status).toBe(403);
  });

  it('refuses URLs that are not https, carry credentials, or point at private, loopback or link-local hosts', async () => {
    for (const url of [
      'http://hooks.example.net/x',
      'ftp://hooks.example.net/x',
      'https://user:pw@hooks.example.net/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://localhost/x',
      'https://intranet/x',
      'not a url',
      `https://hooks.example.net/${'a'.repeat(2100)}`,
    ]) {
      const res = await call('PUT', hook, { body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.type, url).toBe('ConstraintViolationException');
    }
  });

  it('says in the refusal of an http or loopback receiver how a local sandbox takes one (WEBHOOKS_ALLOW_LOOPBACK=true)', async () => {
    for (const url of ['http://127.0.0.1:8123/hook', 'http://localhost:8123/hook', 'https://127.0.0.1/x', 'http://hooks.example.net/x']) {
      const res = await call('PUT', hook, { body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.violations[0].message, url).toContain('WEBHOOKS_ALLOW_LOOPBACK=true');
    }
    // A private or public-looking receiver elsewhere is no local trial: no hint.
    const res = await call('PUT', hook, { body: { url: 'https://10.1.2.3/x' } });
    expect(res.body.violations[0].message).toBe('must point to a public address');
  });

  it('accepts http://127.0.0.1:<port> only with WEBHOOKS_ALLOW_LOOPBACK=true', async () => {
    expect(endpointUrlProblem('http://127.0.0.1:8123/hook')).toBeDefined();
    process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
    expect(endpointUrlProblem('http://127.0.0.1:8123/hook')).toBeUndefined();
    expect(endpointUrlProblem('http://10.0.0.1:8123/hook')).toBeDefined();
    expect(endpointUrlProblem('http://localhost:8123/hook')).toBeDefined();
  });

  it('tells public unicast addresses from the rest', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
});

describe('no private address by any spelling (issue 32 item 2)', () => {
  it.each(nonPublicHosts)('PUT refuses https://%s/ (%s), and delivery would not connect to it', async (host) => {
    const url = `https://${host}/hook`;
    const res = await call('PUT', hook, { body: { url } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'ConstraintViolationException', violations: [expect.objectContaining({ field: 'url' })] });
    expect(deliverableAddress(new URL(url).hostname.replace(/^\[|\]$/g, ''))).toBe(false);
  });

  it.each(publicHosts)('PUT accepts https://%s/', async (host) => {
    const res = await call('PUT', hook, { body: { url: `https://${host}/hook` } });
    expect([200, 201]).toContain(res.status);
    expect(deliverableAddress(new URL(`https://${host}/`).hostname.replace(/^\[|\]$/g, ''))).toBe(true);
  });
});

describe('changing where notifications go needs MANAGE_WEBHOOK (issue 32 item 5)', () => {
  it('demo-limited-key (no permissions) may look but not register, move, remove or rotate; demo-key may', async () => {
    await call('DELETE', hook);
    const registered = await call('PUT', hook, { body: { url: 'https://hooks.example.net/owned' } });
    expect(registered.status).toBe(201);
    for (const [method, path, body] of [
      ['PUT', hook, { url: 'https://attacker.example.net/hook' }],
      ['POST', `${hook}/rotate`, undefined],
      ['DELETE', hook, undefined],
    ] as const) {
      const refused = await call(method, path, { key: limitedKey, ...(body ? { body } : {}) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body).toMatchObject({
        type: 'AuthorizationError',
        message: 'Changing the webhook requires the MANAGE_WEBHOOK permission.',
      });
    }
    const shown = await call('GET', hook, { key: limitedKey });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ url: 'https://hooks.example.net/owned', secretCreatedDate: registered.body.secretCreatedDate });
    expect((await call('POST', `${hook}/rotate`)).status).toBe(200);
  });
});

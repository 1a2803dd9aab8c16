import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { upstreamHandleOf } from '../shared/contacts/upstream-handle.ts';
import { readContact } from '../shared/db/repositories/contacts.ts';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { call } from './support/api.ts';
import { readyWithinMs, startUpstream, type Upstream, upstreamGet } from './support/upstream.ts';

/**
 * Contacts through an upstream Realtime Register account (`REGISTRY_GATEWAY=rtr`), against a second
 * instance of this service's sandbox started here (test/upstream-registry.test.ts says how): a
 * contact is created upstream under RTR_CUSTOMER before a transfer or a domain update names it,
 * its upstream handle is stored, and a change of a mirrored contact reaches the upstream's copy.
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

const contactsPath = '/v2/customers/demo/contacts';
const registrant = {
  name: 'Mirror Registrant',
  organization: 'Mirror B.V.',
  addressLine: ['Spiegelstraat 1'],
  postalCode: '1017 AA',
  city: 'Amsterdam',
  country: 'NL',
  email: 'mirror@example.nl',
  voice: '+31.201234567',
};
const mirrored = upstreamHandleOf('demo', 'mirror-registrant');
const upstreamContact = (handle: string) => upstreamGet(upstream, `/v2/customers/demo/contacts/${handle}`);
const calls = (prefix: string) => upstream.seen.filter((s) => s.startsWith(prefix)).length;

describe('the upstream handle', () => {
  it('is a valid handle, distinct per customer and handle, and starts with the contact handle', () => {
    expect(mirrored).toMatch(/^mirror-registrant-[a-z2-7]{16}$/);
    expect(upstreamHandleOf('demo2', 'mirror-registrant')).not.toBe(mirrored);
    expect(upstreamHandleOf('demo', 'a'.repeat(40))).toMatch(/^[a-z]{20}-[a-z2-7]{16}$/);
    // No separator tricks: customer "a.b" with handle "c" is not customer "a" with handle "b.c".
    expect(upstreamHandleOf('a.b', 'c')).not.toBe(upstreamHandleOf('a', 'b.c'));
  });
});

describe('a transfer through the upstream account', () => {
  it('creates the registrant upstream with its properties first, names it there, and stores its upstream handle', async () => {
    resetCircuit();
    expect((await call('POST', `${contactsPath}/mirror-registrant`, { body: registrant })).status).toBe(201);
    expect((await call('POST', `${contactsPath}/mirror-registrant/sidn`, { body: { properties: { legalForm: 'BV' } } })).status).toBe(200);
    expect((await upstreamContact(mirrored)).status).toBe(404);

    const res = await call('POST', '/v2/domains/transfer-now.nl/transfer', {
      body: { customer: 'demo', registrant: 'mirror-registrant', authcode: 'NL-TRANSFER-2026' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const held = await upstreamContact(mirrored);
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ ...registrant, customer: 'demo', handle: mirrored, properties: { sidn: { legalForm: 'BV' } } });
    // Created before the quote named it upstream.
    const created = upstream.seen.indexOf(`POST /v2/customers/demo/contacts/${mirrored}`);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(upstream.seen.indexOf('POST /v2/domains/transfer-now.nl/transfer?quote=true'));
    // The upstream's domain names the mirrored handle; ours names the customer's own.
    expect((await upstreamGet(upstream, '/v2/domains/transfer-now.nl')).body.registrant).toBe(mirrored);
    expect((await call('GET', '/v2/domains/transfer-now.nl')).body.registrant).toBe('mirror-registrant');
    const stored = await readContact('demo', 'mirror-registrant');
    expect(stored?.contact).toMatchObject({ upstreamHandle: mirrored, upstreamRevision: stored?.revision });
    // Never in the answer.
    const own = await call('GET', `${contactsPath}/mirror-registrant`);
    expect(own.body.upstreamHandle).toBeUndefined();
    expect(own.body.upstreamRevision).toBeUndefined();
  });

  it('does not call the upstream again for a contact it holds as it is', async () => {
    resetCircuit();
    const before = calls(`POST /v2/customers/demo/contacts/${mirrored}`);
    const quote = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: { customer: 'demo', registrant: 'mirror-registrant', authcode: 'COM-TRANSFER-2026' },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(calls(`POST /v2/customers/demo/contacts/${mirrored}`)).toBe(before);
  });
});

describe('a change of a mirrored contact', () => {
  it('reaches the upstream copy first: fields sent, an optional one removed, properties changed', async () => {
    resetCircuit();
    const res = await call('POST', `${contactsPath}/mirror-registrant/update`, {
      body: { name: 'Mirror Renamed', organization: '', voice: '+31.207654321' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const held = (await upstreamContact(mirrored)).body;
    expect(held).toMatchObject({ name: 'Mirror Renamed', voice: '+31.207654321' });
    expect(held.organization).toBeUndefined();
    const props = await call('POST', `${contactsPath}/mirror-registrant/sidn/update`, {
      body: { properties: { legalForm: 'EENMANSZAAK' } },
    });
    expect(props.status, JSON.stringify(props.body)).toBe(200);
    expect((await upstreamContact(mirrored)).body.properties).toEqual({ sidn: { legalForm: 'EENMANSZAAK' } });
    const stored = await readContact('demo', 'mirror-registrant');
    expect(stored?.contact.upstreamRevision).toBe(stored?.revision);
  });

  it("answers the upstream's refusal in our words and changes nothing", async () => {
    resetCircuit();
    const before = (await call('GET', `${contactsPath}/mirror-registrant`)).body;
    upstream.setMode({
      kind: 'status',
      status: 400,
      body: { type: 'ContactUpdateValidationError', message: 'upstream detail', violations: [{ field: 'name', message: 'x' }] },
    });
    try {
      const res = await call('POST', `${contactsPath}/mirror-registrant/update`, { body: { name: 'Refused Name' } });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('ValidationError');
      expect(res.body.violations).toEqual([{ field: 'name', message: 'is refused by the registry' }]);
      expect(JSON.stringify(res.body)).not.toContain('upstream detail');
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect((await call('GET', `${contactsPath}/mirror-registrant`)).body).toEqual(before);
    expect((await upstreamContact(mirrored)).body.name).toBe('Mirror Renamed');
  });

  it('creates it again when the upstream lost it', async () => {
    resetCircuit();
    // Mirrored by a quote that names it (nothing upstream uses it, so it can be deleted there).
    expect((await call('POST', `${contactsPath}/mirror-lost`, { body: registrant })).status).toBe(201);
    const quote = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: { customer: 'demo', registrant: 'mirror-lost', authcode: 'COM-TRANSFER-2026' },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    const lost = upstreamHandleOf('demo', 'mirror-lost');
    const gone = await fetch(new URL(`/v2/customers/demo/contacts/${lost}`, upstream.url), {
      method: 'DELETE',
      headers: { Authorization: 'ApiKey demo-key' },
    });
    expect(gone.status).toBe(204);
    const res = await call('POST', `${contactsPath}/mirror-lost/update`, { body: { city: 'Rotterdam' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await upstreamContact(lost)).body).toMatchObject({ name: registrant.name, city: 'Rotterdam' });
  });

  it('a contact never mirrored is not sent upstream', async () => {
    resetCircuit();
    const before = upstream.seen.length;
    expect((await call('POST', `${contactsPath}/demo-billing/update`, { body: { city: 'Utrecht' } })).status).toBe(200);
    expect(upstream.seen.length).toBe(before);
  });
});

describe('a domain update through the upstream account', () => {
  it('mirrors a new registrant and names it upstream', async () => {
    resetCircuit();
    expect((await call('POST', `${contactsPath}/mirror-second`, { body: { ...registrant, name: 'Second' } })).status).toBe(201);
    expect((await call('POST', `${contactsPath}/mirror-second/sidn`, { body: { properties: { legalForm: 'BV' } } })).status).toBe(200);
    const res = await call('POST', '/v2/domains/transfer-now.nl/update', { body: { registrant: 'mirror-second' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const second = upstreamHandleOf('demo', 'mirror-second');
    expect((await upstreamContact(second)).body.name).toBe('Second');
    expect((await upstreamGet(upstream, '/v2/domains/transfer-now.nl')).body.registrant).toBe(second);
    expect((await call('GET', '/v2/domains/transfer-now.nl')).body.registrant).toBe('mirror-second');
  });
});

describe('a delete and a split through the upstream account', () => {
  /** Creates a contact here and has a transfer quote mirror it upstream; answers its upstream handle. */
  async function mirroredContact(handle: string): Promise<string> {
    expect((await call('POST', `${contactsPath}/${handle}`, { body: { ...registrant, name: handle } })).status).toBe(201);
    await mirror(handle);
    return upstreamHandleOf('demo', handle);
  }
  async function mirror(handle: string): Promise<void> {
    const quote = await call('POST', '/v2/domains/transfer-wait.com/transfer?quote=true', {
      body: { customer: 'demo', registrant: handle, authcode: 'COM-TRANSFER-2026' },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
  }

  it('gives a split its own upstream contact when first used; the original keeps its own', async () => {
    resetCircuit();
    const original = await mirroredContact('mirror-original');
    const split = await call('POST', `${contactsPath}/mirror-original/split`, { body: { newHandle: 'mirror-copy' } });
    expect(split.status, JSON.stringify(split.body)).toBe(201);
    // Not upstream until a use names it, and then under a handle of its own.
    const copy = upstreamHandleOf('demo', 'mirror-copy');
    expect(copy).not.toBe(original);
    expect((await readContact('demo', 'mirror-copy'))?.contact.upstreamHandle).toBeUndefined();
    expect((await upstreamContact(copy)).status).toBe(404);
    await mirror('mirror-copy');
    expect((await upstreamContact(copy)).body).toMatchObject({ handle: copy, name: 'mirror-original', email: registrant.email });
    expect((await readContact('demo', 'mirror-copy'))?.contact.upstreamHandle).toBe(copy);
    // Changing the copy changes its own upstream contact only.
    expect((await call('POST', `${contactsPath}/mirror-copy/update`, { body: { name: 'Copy Renamed' } })).status).toBe(200);
    expect((await upstreamContact(copy)).body.name).toBe('Copy Renamed');
    expect((await upstreamContact(original)).body.name).toBe('mirror-original');
  });

  it('deletes a mirrored contact upstream first, and one the upstream lost here all the same', async () => {
    resetCircuit();
    const held = await mirroredContact('mirror-deleted');
    expect((await upstreamContact(held)).status).toBe(200);
    const res = await call('DELETE', `${contactsPath}/mirror-deleted`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect((await upstreamContact(held)).status).toBe(404);
    expect((await call('GET', `${contactsPath}/mirror-deleted`)).status).toBe(404);

    const lost = await mirroredContact('mirror-gone');
    const gone = await fetch(new URL(`/v2/customers/demo/contacts/${lost}`, upstream.url), {
      method: 'DELETE',
      headers: { Authorization: 'ApiKey demo-key' },
    });
    expect(gone.status).toBe(204);
    expect((await call('DELETE', `${contactsPath}/mirror-gone`)).status).toBe(204);
    expect((await call('GET', `${contactsPath}/mirror-gone`)).status).toBe(404);
  });

  it('refuses the delete while the upstream still uses the contact, or cannot be reached, and deletes nothing', async () => {
    resetCircuit();
    const held = await mirroredContact('mirror-held');
    for (const [mode, status, type] of [
      [
        { kind: 'status', status: 400, body: { type: 'ObjectStatusProhibitsOperation', message: 'upstream detail' } },
        400,
        'ObjectStatusProhibitsOperation',
      ],
      [{ kind: 'status', status: 503 }, 503, 'ProviderUnavailable'],
    ] as const) {
      upstream.setMode(mode);
      try {
        const res = await call('DELETE', `${contactsPath}/mirror-held`);
        expect(res.status).toBe(status);
        expect(res.body.type).toBe(type);
        expect(JSON.stringify(res.body)).not.toContain('upstream detail');
      } finally {
        upstream.setMode({ kind: 'pass' });
        resetCircuit();
      }
      expect((await call('GET', `${contactsPath}/mirror-held`)).status).toBe(200);
      expect((await upstreamContact(held)).status).toBe(200);
    }
  });

  it('a contact never mirrored is deleted without an upstream call', async () => {
    resetCircuit();
    expect((await call('POST', `${contactsPath}/never-mirrored`, { body: registrant })).status).toBe(201);
    const before = upstream.seen.length;
    expect((await call('DELETE', `${contactsPath}/never-mirrored`)).status).toBe(204);
    expect(upstream.seen.length).toBe(before);
  });
});

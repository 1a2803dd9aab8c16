import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadDataset } from '../infra/dataset.ts';
import { readContact } from '../shared/db/repositories/contacts.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { getProvider, putProvider } from '../shared/db/repositories/providers.ts';
import { putRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { listTransferIntents } from '../shared/db/repositories/transfer-intents.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { transferDetailsOf } from '../shared/model/transfer.ts';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { rtrSettingsFromEnvironment, upstreamBaseUrl } from '../shared/registry/rtr-settings.ts';
import { toWireTime } from '../shared/time.ts';
import { type ApiResponse, call } from './support/api.ts';
import { captureOutput } from './support/logs.ts';
import { exited, launch } from './support/sandbox.ts';
import { beforeFirstCall } from './support/sdk-calls.ts';
import { readyWithinMs, startUpstream, type Upstream, upstreamGet } from './support/upstream.ts';

/**
 * The registry through an upstream Realtime Register account (`REGISTRY_GATEWAY=rtr`), tested
 * against a real server that speaks its wire format: a second instance of this service's sandbox,
 * started here as `npm start` on a port of its own with a table of its own, its demo account
 * `demo` standing for the reseller's account upstream (`RTR_CUSTOMER=demo`). The service under
 * test runs in this process, its handlers called through the local gateway.
 */

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
});

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream(inject('dynamodbEndpoint'));
  process.env.REGISTRY_GATEWAY = 'rtr';
  // As users write it, in the TS SDK's baseURL form (with /v2/): the client's paths go under the origin.
  process.env.RTR_API_URL = `${upstream.proxyUrl}/v2/`;
  process.env.RTR_API_KEY = 'demo-key';
  process.env.RTR_CUSTOMER = 'demo';
  process.env.RTR_REGISTRIES = 'sidn,verisign,nominet';
  process.env.RTR_TIMEOUT_MS = '5000';
}, readyWithinMs + 10_000);

afterAll(async () => {
  await upstream?.stop();
});

const demoBody = { customer: 'demo', registrant: 'demo-registrant' };

function transfer(domainName: string, body: Record<string, unknown>, quote = false): Promise<ApiResponse> {
  return call('POST', `/v2/domains/${domainName}/transfer${quote ? '?quote=true' : ''}`, { body });
}

/** The upstream's transfer processes of a name (newest first), as its account sees them. */
async function upstreamTransfers(domainName: string): Promise<any[]> {
  const res = await upstreamGet(upstream, `/v2/processes?identifier=${domainName}&action=transfer`);
  expect(res.status).toBe(200);
  return res.body.entities;
}

/** The upstream process id the service keeps on its own transfer process. */
async function registryReferenceOf(processId: number): Promise<string | undefined> {
  const stored = await getProcess(processId, 'demo', true);
  if (!stored) throw new Error(`no process ${processId}`);
  return transferDetailsOf(stored).registryReference;
}

/** Submissions (not quotes) of a transfer of `domainName` that reached the upstream. */
const submissions = (domainName: string) => upstream.seen.filter((s) => s === `POST /v2/domains/${domainName}/transfer`);

describe("RTR_API_URL: the upstream's base URL as users write it", () => {
  it('takes https://host and https://host/v2, with or without a trailing slash, and names those forms when it refuses one', () => {
    for (const url of ['https://api.yoursrs.com', 'https://api.yoursrs.com/', 'https://api.yoursrs.com/v2', 'https://api.yoursrs.com/v2/'])
      expect(upstreamBaseUrl(url), url).toBe('https://api.yoursrs.com');
    for (const url of [
      'https://api.yoursrs.com/v1',
      'https://api.yoursrs.com/v2/domains',
      'https://api.yoursrs.com?x=1',
      'api.yoursrs.com',
    ])
      expect(upstreamBaseUrl(url), url).toBeUndefined();
    const env = { RTR_API_URL: 'https://api.yoursrs.com/api/v2', RTR_CUSTOMER: 'demo', RTR_REGISTRIES: 'sidn', RTR_API_KEY: 'k' };
    expect(() => rtrSettingsFromEnvironment(env)).toThrow("RTR_API_URL must be the upstream's base URL: https://host or https://host/v2");
    expect(rtrSettingsFromEnvironment({ ...env, RTR_API_URL: 'https://api.yoursrs.com/v2' }).apiUrl).toBe('https://api.yoursrs.com');
  });
});

describe('a transfer through the upstream account', () => {
  it('completes in both: the upstream holds it under RTR_CUSTOMER, our process keeps its id', async () => {
    const quote = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' }, true);
    expect(quote.status).toBe(200);
    expect(quote.body.quote).toMatchObject({ total: 449, currency: 'EUR' });
    // The upstream's own answer tells the current expiry; it is in the plan as the upstream said it.
    expect(quote.body.plan.expiry).toEqual({ before: '2027-02-14T10:00:00Z', after: '2028-02-14T10:00:00Z' });

    const res = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domainName: 'transfer-now.nl', status: 'completed', expiryDate: '2028-02-14T10:00:00Z' });
    const held = await upstreamTransfers('transfer-now.nl');
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ customer: 'demo', status: 'COMPLETED', statusDetail: 'completed' });
    expect(await registryReferenceOf(res.body.processId)).toBe(String(held[0].id));
    // Before submitting, the service asked the upstream whether it already held the transfer.
    const asked = upstream.seen.findIndex((s) => s.startsWith('GET /v2/processes?identifier=transfer-now.nl'));
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(asked).toBeLessThan(upstream.seen.indexOf('POST /v2/domains/transfer-now.nl/transfer'));
    // In the front's account now; and in the upstream's.
    const again = await transfer('transfer-now.nl', { ...demoBody, authcode: 'NL-TRANSFER-2026' });
    expect(again.body.type).toBe('ObjectExists');
  });

  it('a pending transfer is cancelled in both', async () => {
    const res = await transfer('transfer-wait.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('pending');
    const upstreamId = await registryReferenceOf(res.body.processId);
    expect((await upstreamGet(upstream, `/v2/processes/${upstreamId}`)).body.status).toBe('RUNNING');

    const cancelled = await call('DELETE', `/v2/processes/${res.body.processId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const there = await upstreamGet(upstream, `/v2/processes/${upstreamId}`);
    expect(there.body).toMatchObject({ status: 'CANCELLED', statusDetail: 'cancelled' });
  });

  it('a premium name is refused until acknowledged, before anything is submitted upstream; then charged no more', async () => {
    const body = { ...demoBody, authcode: 'COM-TRANSFER-2026' };
    const refused = await transfer('transfer-premium.com', body);
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
    expect(refused.body.quote.billables).toEqual([
      expect.objectContaining({ product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 45000 }),
    ]);
    expect(submissions('transfer-premium.com')).toEqual([]);
    expect(await upstreamTransfers('transfer-premium.com')).toEqual([]);

    const done = await transfer('transfer-premium.com', { ...body, billables: refused.body.quote.billables });
    expect(done.status).toBe(200);
    const [held] = await upstreamTransfers('transfer-premium.com');
    expect(held.billables).toEqual([expect.objectContaining({ action: 'TRANSFER', quantity: 1, amount: 45000, total: 45000 })]);
  });

  it('a locked name, an unknown name and an outage answer as the sandbox registry answers them', async () => {
    const locked = await transfer('transfer-locked.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(locked.status).toBe(400);
    expect(locked.body).toMatchObject({
      type: 'ObjectStatusProhibitsOperation',
      message: 'The registry refuses to transfer transfer-locked.com: its status prohibits it.',
    });
    const unknown = await transfer('nobody-holds-this.com', { ...demoBody, authcode: 'X-1' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Domain', identifier: 'nobody-holds-this.com' });
    const wrongCode = await transfer('transfer-rejected.com', { ...demoBody, authcode: 'WRONG-CODE-1' });
    expect(wrongCode.status).toBe(400);
    expect(wrongCode.body).toMatchObject({
      type: 'ValidationError',
      violations: [{ field: 'authcode', message: 'is not valid for this domain' }],
    });
    expect(wrongCode.raw).not.toContain('WRONG-CODE-1');

    const outage = await transfer('transfer-outage.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(outage.status).toBe(503);
    expect(outage.body.type).toBe('ProviderUnavailable');
    expect(outage.headers['retry-after']).toBe('30');
  });

  it('a contact the upstream account does not hold is created there before a transfer names it; one it lost since is a clear 400', async () => {
    // A contact of the account here that was never created upstream.
    await loadDataset({
      contacts: [
        {
          customer: 'demo',
          handle: 'demo-local-only',
          name: 'Local Only',
          addressLine: ['Dam 1'],
          postalCode: '1012 JS',
          city: 'Amsterdam',
          country: 'NL',
          email: 'local@demo-hosting.example',
          voice: '+31.201234568',
          createdDate: '2026-01-01T00:00:00Z',
        },
      ],
    } as Parameters<typeof loadDataset>[0]);
    const body = { customer: 'demo', registrant: 'demo-local-only', authcode: 'NET-TRANSFER-2026' };
    expect((await transfer('transfer-failed.net', body, true)).status).toBe(200);
    const mirrored = (await readContact('demo', 'demo-local-only'))?.contact.upstreamHandle;
    expect(mirrored).toMatch(/^demo-local-only-[a-z2-7]{16}$/);
    expect((await upstreamGet(upstream, `/v2/customers/demo/contacts/${mirrored}`)).body).toMatchObject({ name: 'Local Only' });
    // Deleted upstream behind this service's back (its record says the upstream holds it as it is).
    const gone = await fetch(new URL(`/v2/customers/demo/contacts/${mirrored}`, upstream.url), {
      method: 'DELETE',
      headers: { Authorization: 'ApiKey demo-key' },
    });
    expect(gone.status).toBe(204);
    const res = await transfer('transfer-failed.net', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      type: 'ValidationError',
      violations: [{ field: 'registrant', message: 'is not known to the registry account' }],
    });
    expect(submissions('transfer-failed.net')).toEqual([]);
  });

  it('the FOA e-mail is resent upstream', async () => {
    const res = await transfer('transfer-foa.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('pendingfoa');
    const upstreamId = await registryReferenceOf(res.body.processId);
    const resent = await call('POST', `/v2/processes/${res.body.processId}/resend`);
    expect(resent.status).toBe(200);
    expect(upstream.seen).toContain(`POST /v2/processes/${upstreamId}/resend`);
  });
});

describe('exactly once without upstream idempotency keys', () => {
  it('the upstream accepted, our commit failed: the retry finds the upstream transfer and records it once', async () => {
    const body = { customer: 'demo', registrant: 'demo-registrant' };
    const stop = beforeFirstCall(
      (command) => command.startsWith('TransactWrite'),
      async () => {
        throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server', $metadata: {} });
      },
    );
    let first: ApiResponse;
    try {
      first = await transfer('transfer-tag.co.uk', body);
    } finally {
      stop();
    }
    expect(first.status).toBeGreaterThanOrEqual(500);
    expect(await upstreamTransfers('transfer-tag.co.uk')).toHaveLength(1);

    const retry = await transfer('transfer-tag.co.uk', body);
    expect(retry.status).toBe(202);
    const held = await upstreamTransfers('transfer-tag.co.uk');
    expect(held).toHaveLength(1);
    expect(submissions('transfer-tag.co.uk')).toHaveLength(1);
    expect(await registryReferenceOf(retry.body.processId)).toBe(String(held[0].id));
  });

  it('the answer was lost during the upstream call: 503, and the retry adopts the transfer instead of submitting again', async () => {
    const body = { ...demoBody, authcode: 'NET-TRANSFER-2026' };
    upstream.setMode({ kind: 'lose-answer', call: 'POST /v2/domains/transfer-whois.net/transfer' });
    let first: ApiResponse;
    try {
      first = await transfer('transfer-whois.net', body);
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBeDefined();
    expect(await upstreamTransfers('transfer-whois.net')).toHaveLength(1);

    const retry = await transfer('transfer-whois.net', body);
    expect(retry.status).toBe(202);
    expect(retry.body.status).toBe('pendingwhois');
    const held = await upstreamTransfers('transfer-whois.net');
    expect(held).toHaveLength(1);
    expect(submissions('transfer-whois.net')).toHaveLength(1);
    expect(await registryReferenceOf(retry.body.processId)).toBe(String(held[0].id));
  });
});

describe('nobody takes over a transfer they did not start', () => {
  const otherBody = { customer: 'other', registrant: 'other-registrant' };
  const heldElsewhere = (domainName: string) => ({
    type: 'ObjectStatusProhibitsOperation',
    message: `The registry refuses to transfer ${domainName}: its status prohibits it.`,
  });

  beforeAll(async () => {
    // Every front customer's contacts are the reseller's upstream: other's registrant too.
    await inUpstreamTable(() =>
      loadDataset({
        contacts: [
          {
            customer: 'demo',
            handle: 'other-registrant',
            name: 'Other Registrant',
            addressLine: ['Dam 2'],
            postalCode: '1012 JS',
            city: 'Amsterdam',
            country: 'NL',
            email: 'registrant@other.example',
            voice: '+31.201234569',
            createdDate: '2026-01-01T00:00:00Z',
          },
        ],
      } as Parameters<typeof loadDataset>[0]),
    );
  });

  /** A name the upstream's sandbox registry runs, its transfer pending there for an hour. */
  async function upstreamName(domainName: string, authcode: string): Promise<void> {
    await inUpstreamTable(() =>
      putRegistryDomain({
        domainName,
        registry: 'verisign',
        authcode,
        statuses: ['ok'],
        expiryDate: '2027-06-15T12:00:00Z',
        ns: ['ns1.old.example', 'ns2.old.example'],
        keyData: [],
        designatedAgentAllowed: true,
        transfer: { stages: [{ status: 'pending', seconds: 3600 }], outcome: 'completed' },
      }),
    );
  }

  /** The processes of a name in one front account (what it is charged for), through the listing. */
  async function frontProcesses(domainName: string, key: string): Promise<number> {
    const res = await call('GET', `/v2/processes?identifier=${domainName}`, { key });
    expect(res.status).toBe(200);
    return res.body.pagination.total;
  }

  it("demo's answer was lost: other's request for the name is refused as a name held elsewhere, uncharged; demo's own retry adopts it", async () => {
    const name = 'takeover-lost.com';
    await upstreamName(name, 'TAKE-CODE-1');
    const body = { ...demoBody, authcode: 'TAKE-CODE-1' };
    upstream.setMode({ kind: 'lose-answer', call: `POST /v2/domains/${name}/transfer` });
    try {
      expect((await transfer(name, body)).status).toBe(503);
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect(await upstreamTransfers(name)).toHaveLength(1);

    // Another customer, with a wrong code and with the right one, for the transfer and for a quote.
    for (const authcode of ['NOT-THE-CODE-1', 'TAKE-CODE-1']) {
      for (const quote of [true, false]) {
        const taken = await call('POST', `/v2/domains/${name}/transfer${quote ? '?quote=true' : ''}`, {
          key: 'other-key',
          body: { ...otherBody, authcode },
        });
        expect(taken.status).toBe(400);
        expect(taken.body).toMatchObject(heldElsewhere(name));
      }
    }
    expect(await frontProcesses(name, 'other-key')).toBe(0);
    expect((await readDomainCollection(name)).lock).toBeUndefined();
    // The same customer asking for something else (another auth code) is not the request that started it either.
    const otherCode = await transfer(name, { ...demoBody, authcode: 'TAKE-CODE-2' });
    expect(otherCode.body).toMatchObject(heldElsewhere(name));
    expect(await frontProcesses(name, 'demo-key')).toBe(0);

    const retry = await transfer(name, body);
    expect(retry.status).toBe(202);
    const held = await upstreamTransfers(name);
    expect(held).toHaveLength(1);
    expect(submissions(name)).toHaveLength(1);
    expect(await registryReferenceOf(retry.body.processId)).toBe(String(held[0].id));
    expect(await frontProcesses(name, 'demo-key')).toBe(1);
  });

  it('a transfer started upstream by hand is adopted by nobody, the customer who asks in the front included', async () => {
    const name = 'takeover-hand.com';
    await upstreamName(name, 'HAND-CODE-1');
    const byHand = await fetch(new URL(`/v2/domains/${name}/transfer`, upstream.url), {
      method: 'POST',
      headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...demoBody, authcode: 'HAND-CODE-1' }),
    });
    expect(byHand.status).toBe(202);
    const [started] = await upstreamTransfers(name);
    expect(started.status).toBe('RUNNING');

    for (const [key, body] of [
      ['demo-key', { ...demoBody, authcode: 'HAND-CODE-1' }],
      ['other-key', { ...otherBody, authcode: 'HAND-CODE-1' }],
    ] as const) {
      const res = await call('POST', `/v2/domains/${name}/transfer`, { key, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject(heldElsewhere(name));
      expect(await frontProcesses(name, key)).toBe(0);
    }
    expect(submissions(name)).toEqual([]);
    expect((await readDomainCollection(name)).lock).toBeUndefined();
    expect((await upstreamGet(upstream, `/v2/processes/${started.id}`)).body.status).toBe('RUNNING');
  });
});

describe('the poller follows the upstream', () => {
  it('a waiting transfer completes in both: the poller asks the upstream and applies its answer', async () => {
    // A name the upstream's sandbox registry runs, pending 2 seconds there, then completed.
    await inUpstreamTable(() =>
      putRegistryDomain({
        domainName: 'upstream-soon.com',
        registry: 'verisign',
        authcode: 'SOON-CODE-1',
        statuses: ['ok'],
        expiryDate: '2027-06-15T12:00:00Z',
        ns: ['ns1.old.example', 'ns2.old.example'],
        keyData: [],
        designatedAgentAllowed: true,
        transfer: { stages: [{ status: 'pending', seconds: 2 }], outcome: 'completed' },
      }),
    );
    const res = await transfer('upstream-soon.com', { ...demoBody, authcode: 'SOON-CODE-1', ns: ['ns1.new.example', 'ns2.new.example'] });
    expect(res.status).toBe(202);
    // The upstream's own poller (every 10 s under npm start) moves it there first.
    for (let waited = 0; (await upstreamTransfers('upstream-soon.com'))[0]?.status !== 'COMPLETED'; waited += 500) {
      if (waited > 30_000) throw new Error('the upstream never completed the transfer');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const { handler } = await import('../functions/transfer-poll/handler.ts');
    const summary = await handler({ time: new Date(Date.now() + 60_000).toISOString() } as never, { awsRequestId: 'soon' } as never);
    expect(summary.completed).toBe(1);
    const info = await call('GET', `/v2/processes/${res.body.processId}/info`);
    expect(info.body).toMatchObject({ status: 'completed', expiryDate: '2028-06-15T12:00:00Z' });
    const [held] = await upstreamTransfers('upstream-soon.com');
    expect(held).toMatchObject({ status: 'COMPLETED', statusDetail: 'completed' });
    // The name servers the transfer asked for went upstream too.
    const zoneThere = await inUpstreamTable(() => readDomainCollection('upstream-soon.com'));
    expect(zoneThere.domain?.ns).toEqual(['ns1.new.example', 'ns2.new.example']);
  }, 60_000);
});

describe('intents of requests that died', () => {
  it('no retry came: the poller asks the upstream, cancels the transfer nobody recorded there, and leaves recorded ones alone', async () => {
    const body = { ...demoBody, authcode: 'NET-TRANSFER-2026' };
    const stop = beforeFirstCall(
      (command) => command.startsWith('TransactWrite'),
      async () => {
        throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server', $metadata: {} });
      },
    );
    try {
      expect((await transfer('transfer-failed.net', body)).status).toBeGreaterThanOrEqual(500);
    } finally {
      stop();
    }
    const [orphan] = await upstreamTransfers('transfer-failed.net');
    expect(orphan.status).toBe('RUNNING');
    const [recordedFoa] = await upstreamTransfers('transfer-foa.net');
    expect(recordedFoa.status).toBe('RUNNING');
    const later = new Date(Date.now() + 11 * 60_000);
    expect(await listTransferIntents(toWireTime(later))).toContainEqual(expect.objectContaining({ domainName: 'transfer-failed.net' }));

    // Too early: the request might still be running; nothing is settled.
    const { handler } = await import('../functions/transfer-poll/handler.ts');
    const early = await handler({ time: new Date().toISOString() } as never, { awsRequestId: 'early' } as never);
    expect(early.intents).toEqual({ intents: 0, recorded: 0, cancelled: 0, unrecorded: 0 });

    const summary = await handler({ time: later.toISOString() } as never, { awsRequestId: 'later' } as never);
    expect(summary.intents?.cancelled).toBe(1);
    expect(summary.intents?.recorded).toBeGreaterThanOrEqual(3);
    expect((await upstreamGet(upstream, `/v2/processes/${orphan.id}`)).body.status).toBe('CANCELLED');
    expect((await upstreamGet(upstream, `/v2/processes/${recordedFoa.id}`)).body.status).toBe('RUNNING');
    expect(await listTransferIntents(toWireTime(later))).toEqual([]);
  });
});

describe('faults of the upstream', () => {
  const body = { ...demoBody, authcode: 'COM-TRANSFER-2026' };

  it('a 5xx, a timeout and a 429 answer 503 ProviderUnavailable with Retry-After (the 429s own); nothing of the upstream leaks', async () => {
    resetCircuit();
    const host = new URL(upstream.proxyUrl).host;
    const answers: ApiResponse[] = [];
    const lines = await captureOutput(async () => {
      upstream.setMode({ kind: 'status', status: 500 });
      answers.push(await transfer('transfer-rejected.com', body, true));
      upstream.setMode({ kind: 'hang' });
      answers.push(await transfer('transfer-rejected.com', body, true));
      upstream.setMode({ kind: 'status', status: 429, retryAfter: '7' });
      answers.push(await transfer('transfer-rejected.com', body, true));
    });
    upstream.setMode({ kind: 'pass' });
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.body.type).toBe('ProviderUnavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.raw).not.toContain(host);
      expect(res.raw).not.toContain('upstream detail');
    }
    expect(answers[2]?.headers['retry-after']).toBe('7');
    const log = lines.join('\n');
    expect(log).toContain('registry upstream unavailable');
    expect(log).not.toContain(host);
    expect(log).not.toContain('upstream detail');
    expect(log).not.toContain('ApiKey demo-key');
    // The 429 asked for 7 s: the circuit holds the upstream off meanwhile, without calling it.
    const calls = upstream.seen.length;
    const held = await transfer('transfer-rejected.com', body, true);
    expect(held.status).toBe(503);
    expect(Number(held.headers['retry-after'])).toBeLessThanOrEqual(7);
    expect(upstream.seen.length).toBe(calls);
    resetCircuit();
  });

  it('an upstream that refuses our key answers 503, logged for the operator without the key', async () => {
    process.env.RTR_API_KEY = 'revoked-upstream-key-0123456789';
    let res: ApiResponse | undefined;
    const lines = await captureOutput(async () => {
      res = await transfer('transfer-rejected.com', body, true);
    }).finally(() => {
      process.env.RTR_API_KEY = 'demo-key';
    });
    expect(res?.status).toBe(503);
    expect(res?.headers['retry-after']).toBe('60');
    expect(res?.raw).not.toContain('revoked-upstream-key');
    const log = lines.join('\n');
    expect(log).toContain('registry upstream refused the account');
    expect(log).not.toContain('revoked-upstream-key');
    expect((await transfer('transfer-rejected.com', body, true)).status).toBe(200);
  });

  it('the circuit opens after repeated failures and stops calling the upstream', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'status', status: 502 });
    try {
      for (let i = 0; i < 5; i++) expect((await transfer('transfer-rejected.com', body, true)).status).toBe(503);
      const calls = upstream.seen.length;
      const open = await transfer('transfer-rejected.com', body, true);
      expect(open.status).toBe(503);
      expect(Number(open.headers['retry-after'])).toBeGreaterThan(0);
      expect(upstream.seen.length).toBe(calls);
    } finally {
      upstream.setMode({ kind: 'pass' });
      resetCircuit();
    }
    expect((await transfer('transfer-rejected.com', body, true)).status).toBe(200);
  });
});

/** Runs `fn` against the upstream's own table (same DynamoDB Local, its table name). */
async function inUpstreamTable<T>(fn: () => Promise<T>): Promise<T> {
  const own = process.env.TABLE_NAME;
  process.env.TABLE_NAME = upstream.tableName;
  try {
    return await fn();
  } finally {
    process.env.TABLE_NAME = own;
  }
}

/** The upstream's registry sidn, its rules changed: what a front must copy. */
async function changeUpstreamSidn(periods: number[], redemptionPeriod: number): Promise<void> {
  await inUpstreamTable(async () => {
    const sidn = await getProvider('REGISTRY', 'sidn');
    if (!sidn?.tldMetadata) throw new Error('no sidn upstream');
    await putProvider({
      ...sidn,
      metadata: { ...sidn.metadata, transferDomainPeriods: periods },
      tldMetadata: { ...sidn.tldMetadata, redemptionPeriod },
    });
  });
}

describe('registry metadata comes from the upstream', () => {
  it('the scheduled job copies provider and TLD info: the front answers what the upstream answers', async () => {
    await changeUpstreamSidn([12, 36], 41);
    const before = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    expect(before.body.metadata.transferDomainPeriods).not.toEqual([12, 36]);

    const { handler } = await import('../functions/registry-metadata/handler.ts');
    const summary = await handler({} as never, { awsRequestId: 'refresh' } as never);
    expect(summary).toEqual({ registries: 3, changed: ['sidn'], failed: [] });

    const front = await call('GET', '/v2/providers/REGISTRY/sidn/info');
    const there = await upstreamGet(upstream, '/v2/providers/REGISTRY/sidn/info');
    expect(front.body).toEqual(there.body);
    expect(front.body.metadata.transferDomainPeriods).toEqual([12, 36]);
    const tld = await call('GET', '/v2/tlds/nl/info');
    expect(tld.body).toEqual((await upstreamGet(upstream, '/v2/tlds/nl/info')).body);
    expect(tld.body.metadata.redemptionPeriod).toBe(41);
    // Nothing changed since: nothing written.
    expect(await handler({} as never, { awsRequestId: 'again' } as never)).toEqual({ registries: 3, changed: [], failed: [] });
    // The validation rules are the upstream's now: a period the dataset's sidn did not allow passes them.
    const quote = await transfer('nobody-holds-this.nl', { ...demoBody, authcode: 'NL-1', period: 36 }, true);
    expect(quote.status).toBe(400);
    expect(quote.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Domain' });
  });

  it(
    'npm start runs as a front: it copies the metadata at start, and a transfer goes through both over HTTP',
    async () => {
      await changeUpstreamSidn([12, 24], 42);
      const started: ChildProcess[] = [];
      const front = await launch(
        [],
        {
          DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
          TABLE_NAME: `front-${crypto.randomUUID()}`,
          REGISTRY_GATEWAY: 'rtr',
          RTR_API_URL: upstream.url,
          RTR_API_KEY: 'demo-key',
          RTR_CUSTOMER: 'demo',
          RTR_REGISTRIES: 'sidn,verisign,nominet',
        },
        { started, readyWithinMs },
      ).catch((error: unknown) => {
        for (const child of started) child.kill('SIGTERM');
        throw error;
      });
      try {
        expect(front.readyLine).toContain("registry: upstream account 'demo', metadata of 3 registries copied");
        expect(front.readyLine).not.toContain(new URL(upstream.url).host);
        const headers = { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' };
        const info = (await (await fetch(`${front.url}/v2/providers/REGISTRY/sidn/info`, { headers })).json()) as {
          metadata: { transferDomainPeriods: number[] };
        };
        expect(info).toEqual((await upstreamGet(upstream, '/v2/providers/REGISTRY/sidn/info')).body);
        expect(info.metadata.transferDomainPeriods).toEqual([12, 24]);

        const res = await fetch(`${front.url}/v2/domains/transfer-rejected.com/transfer`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ ...demoBody, authcode: 'COM-TRANSFER-2026' }),
        });
        expect(res.status).toBe(202);
        expect(((await res.json()) as { status: string }).status).toBe('pending');
        const [held] = await upstreamTransfers('transfer-rejected.com');
        expect(held).toMatchObject({ customer: 'demo', status: 'RUNNING', statusDetail: 'pending' });
      } finally {
        front.child.kill('SIGTERM');
        await exited(front.child);
      }
    },
    readyWithinMs + 30_000,
  );

  it('npm start as a front refuses to start without RTR_API_URL, naming it', async () => {
    const started = launch([], {
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      TABLE_NAME: `front-${crypto.randomUUID()}`,
      REGISTRY_GATEWAY: 'rtr',
      RTR_API_URL: undefined,
      RTR_API_KEY: 'demo-key',
      RTR_CUSTOMER: 'demo',
      RTR_REGISTRIES: 'sidn',
    });
    await expect(started).rejects.toThrow(/launcher exited \(1\)[\s\S]*RTR_API_URL is not set/);
  }, 60_000);
});

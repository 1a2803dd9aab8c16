import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { queryAll } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { getProcess, putProcess } from '../shared/db/repositories/processes.ts';
import { getRegistrationLock, putRegistrationLock } from '../shared/db/repositories/registrations.ts';
import { getRegistryDomain, putRegistryDomain } from '../shared/db/repositories/registry-domains.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { ProcessRecord } from '../shared/model/process.ts';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { toWireTime } from '../shared/time.ts';
import { call } from './support/api.ts';
import { type ProxyMode, readyWithinMs, startUpstream, type Upstream, upstreamGet } from './support/upstream.ts';

/**
 * A registration through an upstream Realtime Register account (`REGISTRY_GATEWAY=rtr`), against a
 * second instance of this service's sandbox (test/support/upstream.ts): the upstream's quote is
 * asked and checked first, the registration is submitted with exactly the charges acknowledged, and
 * an upstream whose answer is lost after it registered the name loses nothing and charges once.
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
  process.env.RTR_TIMEOUT_MS = '20000';
}, readyWithinMs + 10_000);

afterAll(async () => {
  await upstream?.stop();
});

const body = {
  customer: 'demo',
  registrant: 'demo-registrant',
  contacts: [
    { role: 'ADMIN', handle: 'demo-admin' },
    { role: 'TECH', handle: 'demo-tech' },
  ],
};
/** The demo account's processes (this file must not load the registry selector before the upstream runs). */
async function processesOf(customer: string): Promise<ProcessRecord[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.processesOfCustomer(customer).gsi1pk },
  });
  return items.map((item) => v.parse(ProcessRecord, item));
}

/** The proxy answers the upstream's restore quotes of upstream-life.com with a RESTORE fee of `amount` cents above the plain price. */
const restoreFee = (amount: number): ProxyMode => ({
  kind: 'status',
  status: 200,
  call: 'POST /v2/domains/upstream-life.com/restore?quote=true',
  body: {
    command: 'RestoreDomainCommand',
    quote: {
      currency: 'EUR',
      total: amount,
      billables: [{ product: 'domain_com', action: 'RESTORE', quantity: 1, amount, total: amount }],
    },
  },
});

const register = (domainName: string, payload: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/v2/domains/${domainName}`, { body: payload, headers });

async function notificationsOf(domainName: string) {
  const res = await call('GET', '/v2/customers/demo/notifications?limit=100');
  return (res.body.entities as { eventType: string; domainName?: string; subjectStatus?: string }[]).filter(
    (n) => n.eventType === 'CreateDomainEvent' && n.domainName === domainName,
  );
}

/** The upstream's registration processes of a name, newest first, as its account lists them. */
async function upstreamProcessesOf(domainName: string): Promise<{ id: number; status: string }[]> {
  const res = await upstreamGet(upstream, `/v2/processes?identifier=${domainName}&type=domain&action=create&order=-createdDate`);
  return res.body.entities;
}

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

/**
 * Time passes upstream: the registration of `domainName` pending there is over (failed with
 * `fails`, else completed) and due, so the upstream's own poller (every 10 s under `npm start`)
 * ends it; waits until its process there says so.
 */
async function endUpstreamPending(domainName: string, fails?: string): Promise<void> {
  const past = toWireTime(Date.now() - 1000);
  await inUpstreamTable(async () => {
    const record = await getRegistryDomain(domainName);
    const lock = await getRegistrationLock(domainName);
    if (!record?.registeredFor || !lock) throw new Error(`${domainName} is not pending upstream`);
    await putRegistryDomain({
      ...record,
      registeredFor: { ...record.registeredFor, pendingUntil: past },
      ...(fails !== undefined ? { createFails: fails } : {}),
    });
    await putRegistrationLock({ ...lock, actionDate: past });
  });
  const deadline = Date.now() + 60_000;
  while ((await upstreamProcessesOf(domainName))[0]?.status === 'RUNNING') {
    if (Date.now() > deadline) throw new Error(`the upstream did not end the registration of ${domainName}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('a registration through the upstream account', () => {
  it('asks the upstream for its quote first, then registers there under RTR_CUSTOMER (201)', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'pass' });
    const res = await register('upstream-new.com', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const quoteAt = upstream.seen.indexOf('POST /v2/domains/upstream-new.com?quote=true');
    const registerAt = upstream.seen.indexOf('POST /v2/domains/upstream-new.com');
    expect(quoteAt).toBeGreaterThanOrEqual(0);
    expect(registerAt).toBeGreaterThan(quoteAt);
    const held = await upstreamGet(upstream, '/v2/domains/upstream-new.com');
    expect(held.body).toMatchObject({ customer: 'demo', expiryDate: res.body.expiryDate });
    expect((await call('GET', '/v2/domains/upstream-new.com')).body.expiryDate).toBe(res.body.expiryDate);
  });

  it('passes the premium the customer acknowledged to the upstream, at its amount', async () => {
    resetCircuit();
    const refused = await register('register-premium.com', body);
    expect(refused.body.type).toBe('BillableAcknowledgmentNeededException');
    const res = await register('register-premium.com', {
      ...body,
      billables: [{ product: 'domain_com_premium', action: 'CREATE', quantity: 1 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.billables).toEqual([expect.objectContaining({ product: 'domain_com_premium', amount: 120000 })]);
    expect((await upstreamGet(upstream, '/v2/domains/register-premium.com')).body.premium).toBe(true);
  });

  it("answers the upstream's refusals in our words and records nothing", async () => {
    resetCircuit();
    const reserved = await register('register-reserved.com', body);
    expect(reserved.status).toBe(400);
    expect(reserved.body.type).toBe('ValidationError');
    const held = await register('transfer-now.nl', body);
    expect(held.body.type).toBe('ObjectExists');
    expect(await readDomainCollection('register-reserved.com')).toEqual({});
  });

  it('keeps a registration the upstream keeps pending pending (202); a retry after its answer was lost converges on it', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'pass' });
    const name = 'upstream-slow.nl';
    const headers = { 'Idempotency-Key': 'upstream-slow-1' };
    // A name the upstream's registry keeps pending for an hour.
    await inUpstreamTable(() =>
      putRegistryDomain({
        domainName: name,
        registry: 'sidn',
        statuses: [],
        expiryDate: '2099-12-31T00:00:00Z',
        ns: [],
        keyData: [],
        designatedAgentAllowed: false,
        transfer: { stages: [], outcome: 'completed' },
        registration: 'available',
        createSeconds: 3600,
      }),
    );
    upstream.setMode({ kind: 'lose-answer', call: `POST /v2/domains/${name}` });
    const failed = await register(name, body, headers);
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await readDomainCollection(name)).toEqual({});
    const [running] = await upstreamProcessesOf(name);
    expect(running).toMatchObject({ status: 'RUNNING' });
    resetCircuit();
    // A second later (intents are kept per second).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The retry finds the same registration pending upstream: 202 under its process id, nothing submitted again.
    const res = await register(name, body, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ domainName: name });
    const processId = Number(res.headers['x-process-id']);
    const process = await getProcess(processId, 'demo');
    expect(process).toMatchObject({
      status: 'RUNNING',
      details: { status: 'pending', registryReference: String(running?.id) },
      billables: [expect.objectContaining({ action: 'CREATE' })],
    });
    expect(upstream.seen.filter((c) => c === `POST /v2/domains/${name}`)).toHaveLength(1);
    expect(await upstreamProcessesOf(name)).toHaveLength(1);
    // The same key answers the same again.
    expect((await register(name, body, headers)).headers['x-process-id']).toBe(String(processId));
    // The lost request's intent, settled by the poller later, finds it recorded.
    const { settleRegistrationIntents } = await import('../shared/domains/registration-poll.ts');
    expect(await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000))).toMatchObject({ recorded: 1, adopted: 0, errors: 0 });
    // The upstream's registry refuses it in the end: the poller fails it, refunded whole, the customer told.
    await endUpstreamPending(name, 'The registry refused the registrant.');
    const { pollDueRegistrations } = await import('../shared/domains/registration-poll.ts');
    expect(await pollDueRegistrations(new Date(Date.now() + 5 * 60_000))).toMatchObject({ failed: 1, errors: 0 });
    const ended = await getProcess(processId, 'demo');
    expect(ended).toMatchObject({ status: 'FAILED', details: { status: 'failed', refunded: true } });
    expect(ended?.refund).toEqual({ EUR: ended?.billables[0]?.total });
    expect(await readDomainCollection(name)).toEqual({});
    expect((await notificationsOf(name)).map((n) => n.subjectStatus).sort()).toEqual(['FAILED', 'PENDING']);
    expect((await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === name)).toHaveLength(1);
  });

  it('loses nothing and charges once when the upstream registered the name but its answer was lost', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'lose-answer', call: 'POST /v2/domains/upstream-lost.com' });
    const failed = await register('upstream-lost.com', body, { 'Idempotency-Key': 'upstream-lost-1' });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await readDomainCollection('upstream-lost.com')).toEqual({});
    // The upstream holds it for our account.
    expect((await upstreamGet(upstream, '/v2/domains/upstream-lost.com')).status).toBe(200);
    resetCircuit();
    // Asked for something else (another period), it is not the request that made it: registered, as any name.
    const other = await register('upstream-lost.com', { ...body, period: 24 });
    expect(other.status).toBe(400);
    expect(other.body.type).toBe('ObjectExists');
    expect(await readDomainCollection('upstream-lost.com')).toEqual({});
    const retried = await register('upstream-lost.com', body, { 'Idempotency-Key': 'upstream-lost-1' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const creates = (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === 'upstream-lost.com');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.billables).toHaveLength(1);
    // One registration upstream: the retry did not submit a second one.
    expect(upstream.seen.filter((c) => c === 'POST /v2/domains/upstream-lost.com')).toHaveLength(1);
  });
});

/**
 * Renewal, deletion and restore of a domain registered through the upstream account, sharing this
 * file's upstream: the upstream's quote is asked and checked against ours before anything is
 * submitted or committed, and an answer the proxy drops after the upstream acted is recovered by a
 * retry with the same Idempotency-Key: nothing lost, nothing charged twice.
 */
describe('renewal, deletion and restore through the upstream account', () => {
  const name = 'upstream-life.com';
  const renewPath = `/v2/domains/${name}/renew`;
  const restorePath = `/v2/domains/${name}/restore`;
  const ours = async () => (await call('GET', `/v2/domains/${name}`)).body;
  const theirs = async () => (await upstreamGet(upstream, `/v2/domains/${name}`)).body;
  const lifecycleOf = async (action: string) =>
    (await processesOf('demo')).filter((p) => p.action === action && p.identifier === name && p.type === 'domain');
  const seenCount = (c: string) => upstream.seen.filter((s) => s === c).length;

  it('renews upstream after checking its quote, at our price, once', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'pass' });
    expect((await register(name, body)).status).toBe(201);
    const before = (await ours()).expiryDate;
    const res = await call('POST', renewPath, { body: { period: 12 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const quoteAt = upstream.seen.lastIndexOf(`POST ${renewPath}?quote=true`);
    expect(quoteAt).toBeGreaterThanOrEqual(0);
    expect(upstream.seen.lastIndexOf(`POST ${renewPath}`)).toBeGreaterThan(quoteAt);
    expect(Date.parse(res.body.expiryDate)).toBeGreaterThan(Date.parse(before));
    expect(Date.parse((await theirs()).expiryDate)).toBe(Date.parse(res.body.expiryDate));
    expect((await ours()).expiryDate).toBe(res.body.expiryDate);
    const renewals = await lifecycleOf('renew');
    expect(renewals).toHaveLength(1);
    expect(renewals[0]?.billables).toEqual([expect.objectContaining({ product: 'domain_com', action: 'RENEW', amount: 1049 })]);
  });

  it('refuses a renewal whose upstream quote charges more than ours, before anything is submitted or committed', async () => {
    resetCircuit();
    const before = await ours();
    const submitted = seenCount(`POST ${renewPath}`);
    upstream.setMode({
      kind: 'status',
      status: 200,
      call: `POST ${renewPath}?quote=true`,
      body: {
        command: 'RenewDomainCommand',
        quote: {
          currency: 'EUR',
          total: 121049,
          billables: [{ product: 'domain_com_premium', action: 'RENEW', quantity: 1, amount: 120000 }],
        },
      },
    });
    try {
      const res = await call('POST', renewPath, { body: { period: 12 } });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('ValidationError');
      expect(res.body.violations).toEqual([{ field: 'billables', message: 'no longer cover what the registry charges' }]);
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect(seenCount(`POST ${renewPath}`)).toBe(submitted);
    expect(await ours()).toEqual(before);
    expect(await lifecycleOf('renew')).toHaveLength(1);
  });

  it("renews a premium domain at its premium price, the upstream's premium line within ours and acknowledged to it", async () => {
    resetCircuit();
    // Registered through the upstream by the premium test above.
    const premiumPath = '/v2/domains/register-premium.com/renew';
    const quote = await call('POST', `${premiumPath}?quote=true`, { body: { period: 12 } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body.quote.billables).toEqual([
      expect.objectContaining({ product: 'domain_com_premium', action: 'RENEW', amount: 120000 }),
    ]);
    expect((await call('POST', premiumPath, { body: { period: 12 } })).body.type).toBe('BillableAcknowledgmentNeededException');
    const before = (await upstreamGet(upstream, '/v2/domains/register-premium.com')).body.expiryDate;
    const res = await call('POST', premiumPath, { body: { period: 12, billables: quote.body.quote.billables } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = (await upstreamGet(upstream, '/v2/domains/register-premium.com')).body.expiryDate;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
    expect(Date.parse(res.body.expiryDate)).toBe(Date.parse(after));
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.billables).toEqual([expect.objectContaining({ product: 'domain_com_premium', action: 'RENEW', amount: 120000 })]);
  });

  it('renews once when the upstream renewed but its answer was lost; the retry converges', async () => {
    resetCircuit();
    const before = await ours();
    const headers = { 'Idempotency-Key': 'upstream-life-renew' };
    upstream.setMode({ kind: 'lose-answer', call: `POST ${renewPath}` });
    const failed = await call('POST', renewPath, { body: { period: 12 }, headers });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    // The upstream renewed; nothing is recorded or charged here yet.
    expect(Date.parse((await theirs()).expiryDate)).toBeGreaterThan(Date.parse(before.expiryDate));
    expect((await ours()).expiryDate).toBe(before.expiryDate);
    expect(await lifecycleOf('renew')).toHaveLength(1);
    resetCircuit();
    const submitted = seenCount(`POST ${renewPath}`);
    const retried = await call('POST', renewPath, { body: { period: 12 }, headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(Date.parse(retried.body.expiryDate)).toBe(Date.parse((await theirs()).expiryDate));
    expect((await ours()).expiryDate).toBe(retried.body.expiryDate);
    // Not renewed twice upstream, charged once here; the same key answers the same again.
    expect(seenCount(`POST ${renewPath}`)).toBe(submitted);
    expect(await lifecycleOf('renew')).toHaveLength(2);
    const again = await call('POST', renewPath, { body: { period: 12 }, headers });
    expect(again.body).toEqual(retried.body);
    expect(await lifecycleOf('renew')).toHaveLength(2);
  });

  it('deletes once when the upstream deleted but its answer was lost; the retry converges', async () => {
    resetCircuit();
    const headers = { 'Idempotency-Key': 'upstream-life-delete' };
    upstream.setMode({ kind: 'lose-answer', call: `DELETE /v2/domains/${name}` });
    const failed = await call('DELETE', `/v2/domains/${name}`, { headers });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await theirs()).status).toContain('REDEMPTION_PERIOD');
    expect((await ours()).status).not.toContain('REDEMPTION_PERIOD');
    resetCircuit();
    const retried = await call('DELETE', `/v2/domains/${name}`, { headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect((await ours()).status).toEqual(['REDEMPTION_PERIOD']);
    expect(await lifecycleOf('delete')).toHaveLength(1);
    expect(seenCount(`DELETE /v2/domains/${name}`)).toBe(2);
  });

  it('passes an upstream restore fee above our RESTORE price on in the quote; an acknowledgment of less is refused before anything is submitted', async () => {
    resetCircuit();
    const before = await ours();
    expect(before.status).toEqual(['REDEMPTION_PERIOD']);
    const submitted = seenCount(`POST ${restorePath}`);
    const plain = await call('POST', `${restorePath}?quote=true`, { body: { reason: 'deleted by mistake' } });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.quote.billables).toEqual([expect.objectContaining({ product: 'domain_com', action: 'RESTORE', amount: 6500 })]);
    // A fee within our price changes nothing: the customer's own RESTORE price, nothing to acknowledge.
    upstream.setMode(restoreFee(5000));
    const within = await call('POST', `${restorePath}?quote=true`, { body: { reason: 'deleted by mistake' } });
    expect(within.body).toEqual(plain.body);
    upstream.setMode(restoreFee(999999));
    try {
      const quote = await call('POST', `${restorePath}?quote=true`, { body: { reason: 'deleted by mistake' } });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      expect(quote.body).toMatchObject({
        command: 'RestoreDomainCommand',
        quote: {
          currency: 'EUR',
          total: 999999,
          billables: [expect.objectContaining({ product: 'domain_com', action: 'RESTORE', amount: 999999 })],
        },
      });
      // The plain quote's line acknowledged: less than the quote now, refused with the new quote.
      const less = await call('POST', restorePath, { body: { reason: 'deleted by mistake', billables: plain.body.quote.billables } });
      expect(less.status, JSON.stringify(less.body)).toBe(400);
      expect(less.body).toMatchObject({ type: 'BillableAcknowledgmentNeededException', quote: quote.body.quote });
      // Nothing acknowledged: the fee is not the price list's, so it needs acknowledgment.
      const none = await call('POST', restorePath, { body: { reason: 'deleted by mistake' } });
      expect(none.body.type).toBe('BillableAcknowledgmentNeededException');
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect(seenCount(`POST ${restorePath}`)).toBe(submitted);
    expect(await ours()).toEqual(before);
    expect(await lifecycleOf('restore')).toHaveLength(0);
  });

  it('restores once, charging RESTORE once, when the upstream restored but its answer was lost; the retry converges', async () => {
    resetCircuit();
    const headers = { 'Idempotency-Key': 'upstream-life-restore' };
    const quote = await call('POST', `${restorePath}?quote=true`, { body: { reason: 'deleted by mistake' } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    const restoreBody = { reason: 'deleted by mistake', billables: quote.body.quote.billables };
    upstream.setMode({ kind: 'lose-answer', call: `POST ${restorePath}` });
    const failed = await call('POST', restorePath, { body: restoreBody, headers });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await theirs()).status).not.toContain('REDEMPTION_PERIOD');
    expect((await ours()).status).toEqual(['REDEMPTION_PERIOD']);
    expect(await lifecycleOf('restore')).toHaveLength(0);
    resetCircuit();
    const submitted = seenCount(`POST ${restorePath}`);
    const retried = await call('POST', restorePath, { body: restoreBody, headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(seenCount(`POST ${restorePath}`)).toBe(submitted);
    expect((await ours()).status).toEqual(['OK']);
    expect(Date.parse(retried.body.expiryDate)).toBe(Date.parse((await theirs()).expiryDate));
    const restores = await lifecycleOf('restore');
    expect(restores).toHaveLength(1);
    expect(restores[0]?.billables).toEqual([expect.objectContaining({ action: 'RESTORE' })]);
  });

  it('restores at the upstream fee the customer acknowledged, charged once at that fee', async () => {
    resetCircuit();
    expect((await call('DELETE', `/v2/domains/${name}`)).status).toBe(200);
    expect((await theirs()).status).toContain('REDEMPTION_PERIOD');
    upstream.setMode(restoreFee(8999));
    try {
      const quote = await call('POST', `${restorePath}?quote=true`, { body: { reason: 'deleted by mistake' } });
      expect(quote.body.quote.billables).toEqual([expect.objectContaining({ product: 'domain_com', action: 'RESTORE', amount: 8999 })]);
      const submitted = seenCount(`POST ${restorePath}`);
      const res = await call('POST', restorePath, { body: { reason: 'deleted by mistake', billables: quote.body.quote.billables } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(seenCount(`POST ${restorePath}`)).toBe(submitted + 1);
      expect(Date.parse(res.body.expiryDate)).toBe(Date.parse((await theirs()).expiryDate));
    } finally {
      upstream.setMode({ kind: 'pass' });
    }
    expect((await theirs()).status).not.toContain('REDEMPTION_PERIOD');
    expect((await ours()).status).toEqual(['OK']);
    const restores = await lifecycleOf('restore');
    expect(restores).toHaveLength(2);
    expect(restores.map((p) => p.billables)).toContainEqual([
      expect.objectContaining({ product: 'domain_com', action: 'RESTORE', quantity: 1, amount: 8999, total: 8999 }),
    ]);
  });

  it('records a restore whose answer was lost, on its retry, at the fee the upstream charged for it, once', async () => {
    resetCircuit();
    expect((await call('DELETE', `/v2/domains/${name}`)).status).toBe(200);
    const reason = 'deleted by mistake';
    const headers = { 'Idempotency-Key': 'upstream-life-restore-fee' };
    upstream.setMode(restoreFee(8999));
    const quote = await call('POST', `${restorePath}?quote=true`, { body: { reason } });
    expect(quote.body.quote.total).toBe(8999);
    const restoreBody = { reason, billables: quote.body.quote.billables };
    upstream.setMode({ kind: 'lose-answer', call: `POST ${restorePath}` });
    const failed = await call('POST', restorePath, { body: restoreBody, headers });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((await theirs()).status).not.toContain('REDEMPTION_PERIOD');
    // The upstream's registry charged its restore fee for that restore.
    const [restored] = (
      await upstreamGet(upstream, `/v2/processes?identifier=${name}&type=domain&action=restore&order=-createdDate&limit=1`)
    ).body.entities;
    await inUpstreamTable(async () => {
      const process = await getProcess(restored.id, 'demo');
      if (!process) throw new Error('no restore upstream');
      await putProcess({ ...process, billables: process.billables.map((b) => ({ ...b, amount: 8999, total: 8999 })) });
    });
    resetCircuit();
    const submitted = seenCount(`POST ${restorePath}`);
    const retried = await call('POST', restorePath, { body: restoreBody, headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(seenCount(`POST ${restorePath}`)).toBe(submitted);
    expect((await ours()).status).toEqual(['OK']);
    const restores = await lifecycleOf('restore');
    expect(restores).toHaveLength(3);
    expect(restores.filter((p) => p.billables[0]?.amount === 8999)).toHaveLength(2);
  });
});

describe('a registration whose upstream answer was lost and that no retry recorded', () => {
  it('is adopted by the poller for the customer whose intent explains it, charged once; a late retry finds it in the account', async () => {
    resetCircuit();
    const name = 'upstream-orphan.com';
    upstream.setMode({ kind: 'lose-answer', call: `POST /v2/domains/${name}` });
    const failed = await register(name, body, { 'Idempotency-Key': 'upstream-orphan-1' });
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await readDomainCollection(name)).toEqual({});
    const held = await upstreamGet(upstream, `/v2/domains/${name}`);
    expect(held.status).toBe(200);
    const { listRegistrationIntentsOf } = await import('../shared/db/repositories/registration-intents.ts');
    expect(await listRegistrationIntentsOf(name)).toEqual([expect.objectContaining({ customer: 'demo', periodMonths: 12 })]);
    const { settleRegistrationIntents } = await import('../shared/domains/registration-poll.ts');
    resetCircuit();
    // Not before its request could still be retried; then adopted.
    expect((await settleRegistrationIntents(new Date())).intents).toBe(0);
    const settled = await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000));
    expect(settled).toMatchObject({ adopted: 1, errors: 0 });
    expect(await listRegistrationIntentsOf(name)).toEqual([]);
    expect((await call('GET', `/v2/domains/${name}`)).body.expiryDate).toBe(held.body.expiryDate);
    const creates = (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === name);
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ status: 'COMPLETED', billables: [expect.objectContaining({ action: 'CREATE', amount: 1049 })] });
    // Settled once: a second pass finds nothing.
    expect((await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000))).intents).toBe(0);
    const late = await register(name, body, { 'Idempotency-Key': 'upstream-orphan-1' });
    expect(late.body).toMatchObject({ type: 'ObjectExists', message: `${name} is already in your account.` });
    expect(upstream.seen.filter((c) => c === `POST /v2/domains/${name}`)).toHaveLength(1);
    expect((await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === name)).toHaveLength(1);
  });
});

describe('a registration still pending upstream when the poller settles its intent', () => {
  it('is taken up pending for the customer whose intent explains it, charged once, and adopted once it completes upstream', async () => {
    resetCircuit();
    upstream.setMode({ kind: 'pass' });
    const name = 'register-pending.nl';
    const headers = { 'Idempotency-Key': 'upstream-pending-1' };
    upstream.setMode({ kind: 'lose-answer', call: `POST /v2/domains/${name}` });
    const failed = await register(name, body, headers);
    upstream.setMode({ kind: 'pass' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const [running] = await upstreamProcessesOf(name);
    expect(running).toMatchObject({ status: 'RUNNING' });
    const { settleRegistrationIntents, pollDueRegistrations } = await import('../shared/domains/registration-poll.ts');
    resetCircuit();
    const settled = await settleRegistrationIntents(new Date(Date.now() + 11 * 60_000));
    expect(settled).toMatchObject({ adopted: 1, errors: 0 });
    const creates = async () => (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === name);
    const [taken] = await creates();
    expect(taken).toMatchObject({
      status: 'RUNNING',
      details: { status: 'pending', registryReference: String(running?.id) },
      billables: [expect.objectContaining({ action: 'CREATE', amount: expect.any(Number) })],
    });
    expect((await notificationsOf(name)).map((n) => n.subjectStatus)).toEqual(['PENDING']);
    // Asked again while it is pending upstream: still pending, nothing submitted again.
    expect(await pollDueRegistrations(new Date(Date.now() + 12 * 60_000))).toMatchObject({ errors: 0 });
    expect((await creates())[0]?.status).toBe('RUNNING');
    // A late retry meanwhile finds it pending in the account: refused as such, nothing submitted or charged.
    expect((await register(name, body, headers)).body).toMatchObject({
      type: 'ObjectStatusProhibitsOperation',
      message: `A registration of ${name} is already pending.`,
    });
    // The upstream completes it: the domain in the customer's account, charged once (the charge taken up with it).
    await endUpstreamPending(name);
    expect(await pollDueRegistrations(new Date(Date.now() + 13 * 60_000))).toMatchObject({ completed: 1, errors: 0 });
    const [ended] = await creates();
    expect(ended).toMatchObject({ status: 'COMPLETED', details: { status: 'completed' }, billables: taken?.billables });
    const ours = await call('GET', `/v2/domains/${name}`);
    expect(ours.status).toBe(200);
    expect(ours.body.customer).toBe('demo');
    expect(Date.parse(ours.body.expiryDate)).toBe(Date.parse((await upstreamGet(upstream, `/v2/domains/${name}`)).body.expiryDate));
    expect((await notificationsOf(name)).map((n) => n.subjectStatus).sort()).toEqual(['OK', 'PENDING']);
    // A late retry finds it in the account and charges nothing.
    const late = await register(name, body, headers);
    expect(late.body).toMatchObject({ type: 'ObjectExists', message: `${name} is already in your account.` });
    expect(await creates()).toHaveLength(1);
    expect(upstream.seen.filter((c) => c === `POST /v2/domains/${name}`)).toHaveLength(1);
  });
});

import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { queryAll } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { ProcessRecord } from '../shared/model/process.ts';
import { resetCircuit } from '../shared/registry/rtr-client.ts';
import { call } from './support/api.ts';
import { readyWithinMs, startUpstream, type Upstream, upstreamGet } from './support/upstream.ts';

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

const register = (domainName: string, payload: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/v2/domains/${domainName}`, { body: payload, headers });

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

  it('keeps a registration the upstream keeps pending pending (202), under its process id', async () => {
    resetCircuit();
    const res = await register('register-pending.nl', body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const process = await getProcess(Number(res.headers['x-process-id']), 'demo');
    expect(process?.details).toMatchObject({ status: 'pending', registryReference: expect.stringMatching(/^\d+$/) });
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
    const retried = await register('upstream-lost.com', body, { 'Idempotency-Key': 'upstream-lost-1' });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const creates = (await processesOf('demo')).filter((p) => p.action === 'create' && p.identifier === 'upstream-lost.com');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.billables).toHaveLength(1);
    // One registration upstream: the retry did not submit a second one.
    expect(upstream.seen.filter((c) => c === 'POST /v2/domains/upstream-lost.com')).toHaveLength(1);
  });
});

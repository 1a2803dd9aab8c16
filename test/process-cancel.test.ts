import { describe, expect, it } from 'vitest';
import { checkOpenRequests } from '../shared/certificates/dcv-check.ts';
import { getCertificateOf, listOpenRequests } from '../shared/db/repositories/certificates.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { getRegistryDomainWithTransfer } from '../shared/db/repositories/registry-domains.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import { transferDetailsOf } from '../shared/model/transfer.ts';
import { servedRecords, type ZoneRecord } from '../shared/model/zone.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { beforeFirstCall } from './support/sdk-calls.ts';
import { changedKeys, snapshotTable } from './support/table-writes.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/** The records a zone serves: its own, then the DCV records the service added. */
const served = (zone: ZoneRecord | undefined) => (zone ? servedRecords(zone) : []);
/**
 * DELETE /v2/processes/{processId}: a waiting transfer is cancelled at the registry and ends
 * CANCELLED with its refund, its name released; a certificate request still validating ends
 * CANCELLED with its DCV records gone from the zones. Racing the poller and the DCV check, exactly
 * one outcome holds.
 */

const cancel = (id: number | string, options: Parameters<typeof call>[2] = {}) => call('DELETE', `/v2/processes/${id}`, options);
const shopCsr = makeCsr({ cn: 'www.demo-shop.nl' });
let serial = 0;

/** The statuses a transfer process of demo went through. */
async function historyOf(id: number): Promise<string[]> {
  const stored = await getProcess(id, 'demo');
  if (!stored) throw new Error(`no process ${id}`);
  return transferDetailsOf(stored).history.map((h) => h.status);
}

/** A fresh sandbox name whose transfer waits (default: pending an hour, then completed), transferred by demo. */
async function pendingTransfer(
  script: {
    stages: { status: 'pending' | 'pendingfoa' | 'approved' | 'pendingwhois' | 'pendingvalidation'; seconds: number }[];
    outcome: 'completed' | 'rejected' | 'failed';
  } = {
    stages: [{ status: 'pending', seconds: 3600 }],
    outcome: 'completed',
  },
): Promise<{ name: string; id: number; started: ApiResponse }> {
  const name = `cancel-${process.pid}-${++serial}.com`;
  await sandboxDomain(name, {
    transfer: script,
    ...(script.outcome !== 'completed' ? { transfer: { ...script, reason: 'The losing registrar said no.' } } : {}),
  });
  const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
  expect(started.status).toBe(202);
  return { name, id: started.body.processId, started };
}

/** An open renewal of a fresh certificate of demo-shop.nl: DNS DCV records go into the managed zone demo-shop.nl. */
async function openRenewal(csr = shopCsr): Promise<{ certificate: number; id: number; dcv: { dnsRecord: string; dnsContents: string }[] }> {
  const certificate = (await testCertificate()).id;
  const res = await renew(certificate, { period: 12, csr });
  expect(res.status).toBe(202);
  return { certificate, id: Number(res.headers['x-process-id']), dcv: res.body.validations.dcv };
}

describe('DELETE /v2/processes/{processId}: a pending transfer', () => {
  it('cancels it at the registry: CANCELLED, transfer cancelled, refunded, the name released, all in one answer', async () => {
    const { name, id, started } = await pendingTransfer();
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      user: 'demo/alice',
      customer: 'demo',
      status: 'CANCELLED',
      statusDetail: 'cancelled',
      resumeTypes: [],
      createdDate: started.body.requestedDate,
      updatedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      startedDate: started.body.requestedDate,
      type: 'domain',
      action: 'transfer',
      identifier: name,
      billables: [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
      ],
      command: { domainName: name, customer: 'demo', registrant: 'demo-registrant' },
      refund: { EUR: 1049 },
    });
    expect((await call('GET', `/v2/processes/${id}`)).body).toEqual(res.body);
    // The registry holds the cancellation; the name's pending state is gone.
    const registry = await getRegistryDomainWithTransfer(name, started.body.requestedDate);
    expect(registry.transfer).toEqual({ domainName: name, requestedDate: started.body.requestedDate, cancelledDate: res.body.updatedDate });
    expect(await readDomainCollection(name)).toEqual({});
    const info = await call('GET', `/v2/domains/${name}/transfer/${id}`);
    expect(info.body).toMatchObject({
      status: 'cancelled',
      log: [{ status: 'pending' }, { status: 'cancelled', message: 'Cancelled by the customer.' }],
    });
    expect(info.body.actionDate).toBeUndefined();
    // The poller has nothing left to do, even once the registry's script would have completed it.
    const summary = await poll(plus(started.body.requestedDate, 7 * 86_400));
    expect(summary).toMatchObject({ moved: 0, completed: 0, errors: 0 });
    expect((await getProcess(id, 'demo'))?.status).toBe('CANCELLED');
    // The name can be transferred again.
    expect((await transfer(name, { ...demoBody, authcode: 'TEST-CODE' })).status).toBe(202);
  });

  it('answers 400 ObjectStatusProhibitsOperation for a cancelled, completed, rejected or failed transfer, and changes nothing', async () => {
    const { id } = await pendingTransfer();
    expect((await cancel(id)).status).toBe(200);
    const again = await cancel(id);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      type: 'ObjectStatusProhibitsOperation',
      message: `Process ${id} cannot be cancelled (it is CANCELLED, transfer cancelled).`,
      requestId: again.headers['x-request-id'],
    });
    await sandboxDomain('cancel-done.com', { transfer: { stages: [], outcome: 'completed' } });
    const done = await transfer('cancel-done.com', { ...demoBody, authcode: 'TEST-CODE' });
    expect(done.status).toBe(200);
    const rejected = await pendingTransfer({ stages: [{ status: 'pending', seconds: 60 }], outcome: 'rejected' });
    await poll(plus(rejected.started.body.requestedDate, 61));
    for (const [pid, what] of [
      [done.body.processId, 'COMPLETED, transfer completed'],
      [rejected.id, 'FAILED, transfer rejected'],
    ] as const) {
      const before = await snapshotTable();
      const res = await cancel(pid);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Process ${pid} cannot be cancelled (it is ${what}).`);
      expect(changedKeys(before, await snapshotTable())).toEqual([]);
    }
  });

  it('refuses when the registry has already ended the transfer, which the poller then records', async () => {
    const { name, id, started } = await pendingTransfer({ stages: [{ status: 'pending', seconds: 1 }], outcome: 'completed' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await cancel(id);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`The registry had already ended the transfer of ${name} (completed); it cannot be cancelled.`);
    expect((await getRegistryDomainWithTransfer(name, started.body.requestedDate)).transfer).toBeUndefined();
    await poll(new Date());
    expect((await call('GET', `/v2/processes/${id}`)).body).toMatchObject({ status: 'COMPLETED', statusDetail: 'completed' });
  });

  it('answers 503 and writes nothing while the registry cannot be reached', async () => {
    const name = `cancel-outage-${process.pid}.com`;
    await sandboxDomain(name, { unavailable: ['cancelTransfer'] });
    const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    const before = await snapshotTable();
    const res = await cancel(started.body.processId);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
  });

  it("answers another customer's process, and one of another type, as the contract says", async () => {
    const foreign = await cancel(601);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Process', identifier: '601' });
    const acme = await cancel(502);
    expect(acme.status).toBe(400);
    expect(acme.body.message).toBe('Process 502 (acme request) cannot be cancelled.');
  });

  it('replays the first answer to a retry with the same Idempotency-Key', async () => {
    const { id } = await pendingTransfer();
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const first = await cancel(id, { headers });
    const retry = await cancel(id, { headers });
    expect(first.status).toBe(200);
    expect({ status: retry.status, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
      status: 200,
      body: first.body,
      replayed: 'true',
    });
  });
});

describe('DELETE /v2/processes/{processId}: cancel racing the poller', () => {
  it("the poller records the registry's cancellation first: the cancel finds it done, one cancellation, one refund", async () => {
    const { name, id, started } = await pendingTransfer();
    // Just before the cancel writes, the poller runs (later than the transfer's due time) and
    // records the cancellation the registry already holds.
    let pollerRan = false;
    const remove = beforeFirstCall(
      (command, partitions) => command === 'TransactWriteItemsCommand' && partitions.includes(`PROCESS#${id}`),
      async () => {
        await poll(plus(started.body.requestedDate, 2 * 3600));
        pollerRan = true;
      },
    );
    try {
      const res = await cancel(id);
      expect(pollerRan).toBe(true);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'CANCELLED', statusDetail: 'cancelled', refund: { EUR: 1049 } });
    } finally {
      remove();
    }
    const stored = await getProcess(id, 'demo');
    expect(await historyOf(id)).toEqual(['pending', 'cancelled']);
    expect(stored?.refund).toEqual({ EUR: 1049 });
    expect(await readDomainCollection(name)).toEqual({});
  });

  it('the poller moves the transfer on first: the cancel reads it again and cancels what it became', async () => {
    const { id, started } = await pendingTransfer({
      stages: [
        { status: 'pendingfoa', seconds: 1 },
        { status: 'approved', seconds: 3600 },
      ],
      outcome: 'completed',
    });
    // Before the cancel asks the registry, the poller moves pendingfoa -> approved (version 2).
    const remove = beforeFirstCall(
      (command, partitions) => command === 'BatchGetItemCommand' && partitions.some((p) => p.startsWith('REGISTRYDOMAIN#')),
      async () => {
        expect(await poll(plus(started.body.requestedDate, 2))).toMatchObject({ moved: 1 });
      },
    );
    try {
      const res = await cancel(id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'CANCELLED', statusDetail: 'cancelled' });
    } finally {
      remove();
    }
    const d = (await getProcess(id, 'demo'))?.details as { history: { status: string }[]; version: number };
    expect(d.history.map((h) => h.status)).toEqual(['pendingfoa', 'approved', 'cancelled']);
    expect(d.version).toBe(3);
  });

  it('cancels and polls at once around the moment the registry completes: each transfer ends exactly one way', {
    timeout: 60_000,
  }, async () => {
    const transfers = await Promise.all(
      Array.from({ length: 8 }, () => pendingTransfer({ stages: [{ status: 'pending', seconds: 3 }], outcome: 'completed' })),
    );
    const due = new Date(transfers[0]?.started.body.requestedDate as string).getTime() + 3000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now() - 250)));
    // Staggered around the registry's completion, each cancel races a poller run.
    const answers = await Promise.all(
      transfers.map(async ({ id }, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 70));
        const [res] = await Promise.all([cancel(id), poll(new Date())]);
        return res;
      }),
    );
    // Whatever is still waiting is settled by a later run.
    await poll(new Date(Date.now() + 10_000));
    const outcomes: string[] = [];
    for (const [i, { name, id, started }] of transfers.entries()) {
      const res = answers[i] as ApiResponse;
      const stored = await getProcess(id, 'demo');
      const collection = await readDomainCollection(name);
      const registry = await getRegistryDomainWithTransfer(name, started.body.requestedDate);
      const history = await historyOf(id);
      expect(collection.lock).toBeUndefined();
      outcomes.push(String(stored?.status));
      if (stored?.status === 'CANCELLED') {
        expect({
          answer: res.status,
          refund: stored.refund,
          domain: collection.domain,
          registry: registry.transfer?.cancelledDate !== undefined,
          history,
        }).toEqual({
          answer: 200,
          refund: { EUR: 1049 },
          domain: undefined,
          registry: true,
          history: ['pending', 'cancelled'],
        });
      } else {
        expect({
          status: stored?.status,
          answer: res.status,
          refund: stored?.refund,
          held: collection.domain?.customer,
          registry: registry.transfer,
          history,
        }).toEqual({
          status: 'COMPLETED',
          answer: 400,
          refund: undefined,
          held: 'demo',
          registry: undefined,
          history: ['pending', 'completed'],
        });
      }
    }
    console.log(
      `cancel racing the poller: ${outcomes.filter((o) => o === 'CANCELLED').length} cancelled, ${outcomes.filter((o) => o === 'COMPLETED').length} completed`,
    );
  });

  it('ten cancels of one transfer at once: one cancellation, one refund, every answer the cancelled process or a refusal', async () => {
    const { id } = await pendingTransfer();
    const answers = await Promise.all(Array.from({ length: 10 }, () => cancel(id)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.body).toMatchObject({ status: 'CANCELLED', refund: { EUR: 1049 } });
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.body.type).toBe('ObjectStatusProhibitsOperation');
    const d = (await getProcess(id, 'demo'))?.details as { history: { status: string }[] };
    expect(d.history.map((h) => h.status)).toEqual(['pending', 'cancelled']);
  });
});

describe('DELETE /v2/processes/{processId}: a certificate request still validating', () => {
  it('ends CANCELLED and refunded, removes the DCV records it added, and frees the certificate for another renewal', async () => {
    const zoneBefore = await getZone('demo-shop.nl');
    const { certificate, id, dcv } = await openRenewal();
    const names = dcv.map((e) => e.dnsRecord);
    const withRecords = await getZone('demo-shop.nl');
    expect(served(withRecords).filter((r) => names.includes(r.name))).toHaveLength(2);
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'CANCELLED',
      resumeTypes: [],
      type: 'certificate',
      action: 'renew',
      billables: [
        { product: 'ssl_sectigo_dv', action: 'RENEW', quantity: 1, amount: 1295, providerName: 'sectigo', refundable: true, total: 1295 },
      ],
      refund: { EUR: 1295 },
    });
    expect(res.body.statusDetail).toBeUndefined();
    expect(res.body.command).toMatchObject({ certificateId: certificate, period: 12 });
    expect(res.body.command.csr).toBeUndefined();
    // Exactly the records it added are gone; the zone is otherwise as before.
    const after = await getZone('demo-shop.nl');
    expect(served(after)).toEqual(served(zoneBefore));
    expect(await listOpenRequests()).not.toContain(id);
    expect((await getCertificateOf('demo', certificate))?.renewalProcessId).toBeUndefined();
    const info = await call('GET', `/v2/processes/${id}/info`);
    expect(info.body.requiresAttention).toBe(false);
    expect(info.body.nextAction).toBeUndefined();
    expect(info.body.notes).toEqual([
      { createdDate: res.body.updatedDate, type: 'OUTGOING', message: 'Cancelled at the request of the customer.' },
    ]);
    // The DCV check leaves it alone; the certificate can be renewed again.
    await checkOpenRequests(new Date(Date.now() + 60_000));
    expect((await getProcess(id, 'demo'))?.status).toBe('CANCELLED');
    expect((await getCertificateOf('demo', certificate))?.renewedBy).toBeUndefined();
    expect((await renew(certificate, { period: 12, csr: shopCsr })).status).toBe(202);
    expect((await cancel(id)).status).toBe(400);
  });

  it('leaves a DCV record the customer changed meanwhile, and removes the others', async () => {
    // A CSR of its own, so that its DCV record names are its own too.
    const { id, dcv } = await openRenewal(makeCsr({ subject: 'CN=www.demo-shop.nl, O=Changed Records' }));
    const zone = await getZone('demo-shop.nl');
    const changed = dcv[0] as { dnsRecord: string };
    // The customer's own record of that name now (the service's DCV record rewritten in place).
    const { putZone } = await import('../shared/db/repositories/zone-writes.ts');
    await putZone({
      ...(zone as NonNullable<typeof zone>),
      dcvRecords: (zone?.dcvRecords ?? []).map((r) => (r.name === changed.dnsRecord ? { ...r, content: 'my-own.example' } : r)),
    });
    expect((await cancel(id)).status).toBe(200);
    const left = served(await getZone('demo-shop.nl')).filter((r) => dcv.some((e) => e.dnsRecord === r.name));
    expect(left).toEqual([{ name: changed.dnsRecord, type: 'CNAME', content: 'my-own.example', ttl: 300 }]);
  });

  it('racing the DCV check that issues it: the issue wins, the cancel answers 400, nothing of the cancel is written', async () => {
    const { certificate, id } = await openRenewal();
    const remove = beforeFirstCall(
      (command, partitions) => command === 'TransactWriteItemsCommand' && partitions.includes(`PROCESS#${id}`),
      async () => {
        await checkOpenRequests(new Date(Date.now() + 1000));
      },
    );
    try {
      const res = await cancel(id);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`Process ${id} cannot be cancelled (it is COMPLETED).`);
    } finally {
      remove();
    }
    const stored = await getProcess(id, 'demo');
    expect({ status: stored?.status, refund: stored?.refund }).toEqual({ status: 'COMPLETED', refund: undefined });
    expect((await getCertificateOf('demo', certificate))?.renewedBy).toBeDefined();
  });

  it('racing the DCV check the other way: the cancel wins, the check issues nothing', async () => {
    const { certificate, id } = await openRenewal();
    let cancelled: ApiResponse | undefined;
    const remove = beforeFirstCall(
      (command, partitions) => command === 'TransactWriteItemsCommand' && partitions.includes(`PROCESS#${id}`),
      async () => {
        cancelled = await cancel(id);
      },
    );
    try {
      await checkOpenRequests(new Date(Date.now() + 1000));
    } finally {
      remove();
    }
    expect(cancelled?.status).toBe(200);
    expect((await getProcess(id, 'demo'))?.status).toBe('CANCELLED');
    const cert = await getCertificateOf('demo', certificate);
    expect({ renewedBy: cert?.renewedBy, renewalProcessId: cert?.renewalProcessId }).toEqual({
      renewedBy: undefined,
      renewalProcessId: undefined,
    });
  });

  it("answers another customer's certificate request exactly like a missing process", async () => {
    const foreign = await cancel(601);
    const missing = await cancel(999_999);
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, requestId: '', identifier: '', message: '' }).toEqual({
      ...missing.body,
      requestId: '',
      identifier: '',
      message: '',
    });
    expect((await call('GET', '/v2/processes/601', { key: otherKey })).status).toBe(200);
  });
});

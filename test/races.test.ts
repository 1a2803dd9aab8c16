import { describe, expect, it, vi } from 'vitest';
import { getCertificateOf } from '../shared/db/repositories/certificates.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { type ApiResponse, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { budget } from './support/contention.ts';
import { makeCsr } from './support/csr.ts';
import { demoBody, processesOf, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Races through the gateway, all requests in flight at once against DynamoDB Local. Each race runs
 * RACE_ROUNDS times (1 in CI; `npm run stress -- --rounds N` for more).
 */

// Up to 200 requests share this one process at once, where each would run in a function of its own
// when deployed: each gets the time of a whole race, not one function's 10 s (infra/local/gateway.ts).
vi.hoisted(() => {
  process.env.LOCAL_FUNCTION_TIMEOUT_MS = '120000';
});

const rounds = Number(process.env.RACE_ROUNDS) || 1;
const timeout = process.env.RACE_ROUNDS ? 0 : budget(60_000);
const csr = makeCsr({ cn: 'www.demo-shop.nl' });
let serial = 0;

/** A fresh name in the sandbox registry whose transfer waits (202). */
async function freshDomain(): Promise<string> {
  const name = `race-${process.pid}-${++serial}.com`;
  await sandboxDomain(name);
  return name;
}

const otherBody = { customer: 'other', registrant: 'other-registrant' };

function processIdsOf(responses: ApiResponse[]): number[] {
  return responses.filter((r) => r.status === 202 || r.status === 200).map((r) => Number(r.headers['x-process-id']));
}

describe('races', () => {
  it(`50 concurrent transfers of one domain by two customers create exactly one process (x${rounds})`, { timeout }, async () => {
    for (let round = 0; round < rounds; round++) {
      const name = await freshDomain();
      const before = [...(await processesOf('demo')), ...(await processesOf('other'))].length;
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i % 2 === 0
            ? transfer(name, { ...demoBody, authcode: 'TEST-CODE' })
            : transfer(name, { ...otherBody, authcode: 'TEST-CODE' }, { key: otherKey }),
        ),
      );
      const won = responses.filter((r) => r.status === 202);
      expect(won).toHaveLength(1);
      for (const lost of responses.filter((r) => r.status !== 202)) {
        expect(lost.status).toBe(400);
        expect(lost.body.type).toBe('ObjectStatusProhibitsOperation');
      }
      const processes = [...(await processesOf('demo')), ...(await processesOf('other'))];
      expect(processes).toHaveLength(before + 1);
      const created = processes.filter((p) => p.identifier === name);
      expect(created.map((p) => p.id)).toEqual(processIdsOf(won));
      expect((await readDomainCollection(name)).lock?.processId).toBe(created[0]?.id);
    }
  });

  it(`50 concurrent renewals of one certificate create exactly one process (x${rounds})`, { timeout }, async () => {
    for (let round = 0; round < rounds; round++) {
      const certificate = await testCertificate();
      const responses = await Promise.all(Array.from({ length: 50 }, () => renew(certificate.id, { period: 12, csr })));
      const won = responses.filter((r) => r.status === 202);
      expect(won).toHaveLength(1);
      for (const lost of responses.filter((r) => r.status !== 202)) {
        expect(lost.status).toBe(400);
        expect(lost.body.type).toBe('ObjectStatusProhibitsOperation');
      }
      const [id] = processIdsOf(won);
      expect((await getCertificateOf('demo', certificate.id))?.renewalProcessId).toBe(id);
      const renewals = (await processesOf('demo')).filter(
        (p) => p.type === 'certificate' && (p.details as { certificateId?: number }).certificateId === certificate.id,
      );
      expect(renewals.map((p) => p.id)).toEqual([id]);
    }
  });

  it(`50 concurrent retries with one Idempotency-Key create one process and get 50 identical answers (x${rounds})`, {
    timeout,
  }, async () => {
    for (let round = 0; round < rounds; round++) {
      const name = await freshDomain();
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { headers })),
      );
      const first = responses[0] as ApiResponse;
      expect(first.status).toBe(202);
      for (const res of responses) {
        expect({ status: res.status, body: res.body, processId: res.headers['x-process-id'] }).toEqual({
          status: first.status,
          body: first.body,
          processId: first.headers['x-process-id'],
        });
      }
      // One ran; the other 49 replayed its stored answer.
      expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
      expect((await processesOf('demo')).filter((p) => p.identifier === name)).toHaveLength(1);

      const certificate = await testCertificate();
      const renewHeaders = { 'Idempotency-Key': crypto.randomUUID() };
      const renewals = await Promise.all(
        Array.from({ length: 50 }, () => renew(certificate.id, { period: 12, csr }, { headers: renewHeaders })),
      );
      const one = renewals[0] as ApiResponse;
      expect(one.status).toBe(202);
      for (const res of renewals)
        expect([res.status, res.body, res.headers['x-process-id']]).toEqual([one.status, one.body, one.headers['x-process-id']]);
      expect(renewals.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    }
  });

  it(`process ids stay unique under 200 concurrent creations, transfers and renewals mixed (x${rounds})`, { timeout }, async () => {
    for (let round = 0; round < rounds; round++) {
      const names = await Promise.all(Array.from({ length: 100 }, () => freshDomain()));
      const certificates = await Promise.all(Array.from({ length: 100 }, () => testCertificate()));
      const responses = await Promise.all([
        ...names.map((name, i) =>
          i % 2 === 0
            ? transfer(name, { ...demoBody, authcode: 'TEST-CODE' })
            : transfer(name, { ...otherBody, authcode: 'TEST-CODE' }, { key: otherKey }),
        ),
        ...certificates.map((c) => renew(c.id, { period: 12, csr })),
      ]);
      expect(responses.map((r) => r.status)).toEqual(Array(200).fill(202));
      const ids = processIdsOf(responses);
      expect(new Set(ids).size).toBe(200);
      for (const [i, res] of responses.entries()) {
        const owner = i < 100 && i % 2 === 1 ? 'other' : 'demo';
        const stored = await getProcess(Number(res.headers['x-process-id']), owner);
        expect(stored?.identifier).toBe(i < 100 ? names[i] : 'www.demo-shop.nl');
      }
    }
  });
});

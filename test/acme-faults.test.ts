import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPebble, startPebble } from '../infra/local/pebble.ts';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type AcmeProxy, problemAnswer, startAcmeProxy } from './support/acme-proxy.ts';
import { makeCsr } from './support/csr.ts';

/**
 * ACME with any CA: answers another CA gives where Pebble gives none, injected by a proxy in front
 * of Pebble that rewrites them (test/support/acme-proxy.ts), through the real renew handler and
 * DCV job, with the dns-01 records published in PowerDNS and validated by Pebble.
 */

let pdns: LocalPowerDns;
let pebble: LocalPebble;
let proxy: AcmeProxy;
let api: typeof import('./support/api.ts');
let certs: typeof import('./support/certificates.ts');
let dcvCheck: (event: ScheduledEvent, context: Context) => Promise<unknown>;

const scheduled = { 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} } as unknown as ScheduledEvent;
const jobContext = { awsRequestId: 'acme-faults', functionName: 'dcv-check' } as Context;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  pdns = await startPowerDns();
  pebble = await startPebble({ dnsServer: `127.0.0.1:${pdns.dnsPort}`, nonceReject: 0 });
  proxy = await startAcmeProxy(pebble);
  setDefaultCACertificates([...getCACertificates('default'), pebble.tlsCertificate, proxy.certificate]);
  Object.assign(process.env, {
    CERTIFICATE_AUTHORITY: 'acme',
    DNS_PROVIDER: 'powerdns',
    POWERDNS_API_URL: pdns.apiUrl,
    POWERDNS_API_KEY: pdns.apiKey,
    ACME_DIRECTORY_URL: proxy.directoryUrl,
    ACME_EAB_KID: pebble.eab.kid,
    ACME_EAB_HMAC_KEY: pebble.eab.hmacKey,
    ACME_TIMEOUT_SECONDS: '2',
    ACME_RETRY_SECONDS: '1',
    ACME_DNS_RESOLVER: `${pdns.dnsAddress}:${pdns.dnsPort}`,
    ACME_DNS_RECHECK_SECONDS: '1',
  });
  api = await import('./support/api.ts');
  certs = await import('./support/certificates.ts');
  dcvCheck = (await import('../functions/dcv-check/handler.ts')).handler;
  const { dnsProvider } = await import('../shared/dns/select.ts');
  const { syncZone } = await import('../shared/dns/sync.ts');
  await syncZone(dnsProvider() as never, 'demo-shop.nl');
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await pebble?.stop();
  await pdns?.stop();
});

/** A renewal of a fresh one-name certificate in demo-shop.nl, its CSR carrying exactly that name. */
async function freshRenewal(label: string) {
  const name = `${label}-${Math.random().toString(36).slice(2, 8)}.demo-shop.nl`;
  const certificate = await certs.testCertificate({ commonName: name, san: [name] });
  const csr = makeCsr({ cn: name, san: [name], key: 'p256' });
  const res = await certs.renew(certificate.id, { period: 12, csr, san: [] });
  expect(res.status, res.raw).toBe(202);
  return { name, processId: res.headers['x-process-id'] as string };
}

/** Runs the DCV job until `done` holds for the process info (or the time is up); answers the info. */
async function passesUntil(processId: string, done: (info: any, status: string) => boolean, seconds = 40) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    await dcvCheck(scheduled, jobContext);
    const status = (await api.call('GET', `/v2/processes/${processId}`)).body.status as string;
    const info = (await api.call('GET', `/v2/processes/${processId}/info`)).body;
    if (done(info, status) || Date.now() > deadline) return { info, status };
    await sleep(400);
  }
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

/** The process's details as kept (the order is not on the wire). */
async function orderOf(processId: string) {
  const { getProcessById } = await import('../shared/db/repositories/processes.ts');
  return ((await getProcessById(Number(processId)))?.details as Record<string, any> | undefined)?.order;
}

describe('a CSR without the free www/non-www name', () => {
  it('is refused at the renew call with a 400 naming the missing name, since the CA would refuse the order', async () => {
    const certificate = await certs.testCertificate({ commonName: 'www.demo-shop.nl', san: ['www.demo-shop.nl'] });
    const csr = makeCsr({ cn: 'www.demo-shop.nl', san: ['www.demo-shop.nl'], key: 'p256' });
    const res = await certs.renew(certificate.id, { period: 12, csr });
    expect(res.status, res.raw).toBe(400);
    expect(res.body.type).toBe('ValidationError');
    expect(res.body.message).toContain('lacks demo-shop.nl');
    expect(res.body.violations).toEqual([expect.objectContaining({ field: 'csr', message: expect.stringContaining('demo-shop.nl') })]);
    // Leaving the free name out of the request orders exactly the CSR's names.
    const without = await certs.renew(certificate.id, { period: 12, csr, san: [] });
    expect(without.status, without.raw).toBe(202);
    expect((await api.call('DELETE', `/v2/processes/${without.headers['x-process-id']}`)).status).toBe(200);
  });
});

describe('a refusal at finalize', () => {
  it('ends the order: the request asks for attention with the CA problem in its notes and a notification, and is never finalized again', async () => {
    const { name, processId } = await freshRenewal('refused');
    const finalizes: string[] = [];
    proxy.rewrite = (call) => {
      if (call.method !== 'POST' || !call.path.startsWith('/finalize-order/')) return undefined;
      finalizes.push(call.path);
      return { ...problemAnswer(400, 'badCSR', `The CSR does not name ${name} the way this CA wants`), forward: false };
    };
    try {
      const { info, status } = await passesUntil(processId, (i) => i.requiresAttention === true);
      expect(status).toBe('RUNNING');
      expect(info.requiresAttention).toBe(true);
      expect(finalizes, JSON.stringify(info.notes)).toHaveLength(1);
      const notes = info.notes.map((n: { message: string }) => n.message).join('\n');
      expect(notes).toContain('refused to issue the certificate: badCSR: The CSR does not name');
      const told = await api.call('GET', `/v2/customers/demo/notifications?process=${processId}&eventType=AcmeOrderFailedEvent`);
      expect(told.body.entities).toEqual([expect.objectContaining({ reason: expect.stringContaining('badCSR') })]);
      expect((await orderOf(processId))?.step).toBe('refused');
      // Later passes take no step: nothing is sent to the CA for it again.
      const calls = proxy.calls.length;
      await dcvCheck(scheduled, jobContext);
      await dcvCheck(scheduled, jobContext);
      expect(finalizes).toHaveLength(1);
      expect(proxy.calls.slice(calls).filter((c) => c.includes('/finalize-order/') || c.includes('/my-order/'))).toEqual([]);
      // The customer cancels it, and renews with a corrected request.
      expect((await api.call('DELETE', `/v2/processes/${processId}`)).status).toBe(200);
    } finally {
      proxy.rewrite = undefined;
    }
  }, 90_000);
});

describe('an account order list answered as a bare JSON array', () => {
  it('is read: after a crash between newOrder and its record, the order is found there and no second one is placed', async () => {
    const directory = JSON.parse((await (await fetch(proxy.directoryUrl)).text()) as string) as { newOrder: string };
    const newOrderPath = new URL(directory.newOrder).pathname;
    let lists = 0;
    let lost = 0;
    const { name, processId } = await freshRenewal('bare-list');
    proxy.rewrite = (call, answer) => {
      if (!answer) return undefined;
      const payload = call.payload as { identifiers?: { value: string }[] } | undefined;
      // The order is created at the CA, but its answer never reaches the job (a crash, a lost connection).
      if (call.path === newOrderPath && payload?.identifiers?.some((i) => i.value === name) && lost === 0) {
        lost++;
        return problemAnswer(500, 'serverInternal', 'the answer was lost', answer.headers['replay-nonce']);
      }
      const body = answer.status === 200 && String(answer.headers['content-type']).includes('json') ? jsonOf(answer.body) : undefined;
      if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).join() === 'orders') {
        lists++;
        return { ...answer, body: Buffer.from(JSON.stringify((body as { orders: unknown[] }).orders)) };
      }
      return undefined;
    };
    try {
      const before = proxy.calls.filter((c) => c === `POST ${newOrderPath}`).length;
      const { info, status } = await passesUntil(processId, (_i, s) => s !== 'RUNNING', 60);
      expect(status, JSON.stringify(info)).toBe('COMPLETED');
      expect(lost).toBe(1);
      expect(lists).toBeGreaterThan(0);
      // One newOrder for the name: the lost one, found again in the bare list.
      expect(proxy.calls.filter((c) => c === `POST ${newOrderPath}`).length - before).toBe(1);
    } finally {
      proxy.rewrite = undefined;
    }
  }, 120_000);
});

describe('a cancel whose withdrawal the CA refuses', () => {
  it('removes the challenge records at once; the CA is asked again with a back-off, then no more, and the notes say so', async () => {
    const { name, processId } = await freshRenewal('withdraw');
    // When the pass that asked started (the job's clock: a back-off counts from its start).
    const deactivations: number[] = [];
    let passStart = 0;
    const pass = async () => {
      passStart = Date.now();
      await dcvCheck(scheduled, jobContext);
    };
    proxy.rewrite = (call, answer) => {
      const payload = call.payload as { status?: string } | undefined;
      if (answer === undefined && call.method === 'POST' && call.path.startsWith('/authZ/') && payload?.status === 'deactivated') {
        deactivations.push(passStart);
        return { ...problemAnswer(403, 'unauthorized', 'this CA does not deactivate authorizations'), forward: false };
      }
      // The challenge is left unanswered at Pebble (answered as still pending), so the order waits at `validating`.
      if (answer === undefined && call.method === 'POST' && call.path.startsWith('/chalZ/') && payload !== undefined) {
        const body = { type: 'dns-01', url: `https://127.0.0.1${call.path}`, status: 'pending', token: 'held' };
        return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), forward: false };
      }
      return undefined;
    };
    const { dnsProvider } = await import('../shared/dns/select.ts');
    const served = async () =>
      ((await dnsProvider()?.zone('demo-shop.nl.'))?.recordSets ?? []).some(
        (r) => r.name === `_acme-challenge.${name}.` && r.type === 'TXT',
      );
    try {
      await passesUntil(processId, () => false, 4);
      expect((await orderOf(processId))?.step).toBe('validating');
      expect(await served()).toBe(true);
      expect((await api.call('DELETE', `/v2/processes/${processId}`)).status).toBe(200);
      await pass();
      expect(deactivations).toHaveLength(1);
      const afterFirst = await orderOf(processId);
      expect(afterFirst?.withdrawals, JSON.stringify(afterFirst)).toBe(1);
      expect(await served()).toBe(false);
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && deactivations.length < 4) {
        await pass();
        await sleep(200);
      }
      expect(deactivations).toHaveLength(4);
      // Each ask waits the back-off of the refusals before it: 1, 2, 4 s (ACME_RETRY_SECONDS=1, doubling),
      // less up to a second (the time to ask again is recorded in whole seconds, as every wire time is).
      const gaps = deactivations.slice(1).map((t, i) => t - (deactivations[i] as number));
      expect(
        gaps.map((gap, i) => gap >= 2 ** i * 1000 - 1000),
        JSON.stringify(gaps),
      ).toEqual([true, true, true]);
      expect(gaps[2] as number, JSON.stringify(gaps)).toBeGreaterThan(gaps[0] as number);
      // Then the CA is asked no more.
      for (let i = 0; i < 3; i++) await pass();
      expect(deactivations).toHaveLength(4);
      const { getProcessById } = await import('../shared/db/repositories/processes.ts');
      const details = (await getProcessById(Number(processId)))?.details as { notes: { message: string }[] } | undefined;
      const notes = (details?.notes ?? []).map((n) => n.message);
      expect(notes.join('\n')).toContain('The challenge records were removed; the certificate authority refused to withdraw the order');
      expect(notes.join('\n')).toContain('refused 4 times to withdraw the order');
    } finally {
      proxy.rewrite = undefined;
    }
  }, 90_000);
});

describe('a challenge the CA left pending with an error', () => {
  it('is answered again, with a back-off, once the record is served; after a few tries the notes say what the CA reported', async () => {
    const { name, processId } = await freshRenewal('pending-error');
    const answers: number[] = [];
    const lookupFailed = {
      type: 'urn:ietf:params:acme:error:dns',
      detail: `DNS problem: SERVFAIL looking up TXT for _acme-challenge.${name}`,
      status: 400,
    };
    proxy.rewrite = (call, answer) => {
      const payload = call.payload as Record<string, unknown> | undefined;
      const mine = (body: unknown) => JSON.stringify(body ?? '').includes(name);
      // The first three answers to the challenge never reach Pebble: the CA "looked once, failed, and left it pending".
      if (answer === undefined && call.method === 'POST' && call.path.startsWith('/chalZ/') && payload !== undefined) {
        answers.push(Date.now());
        if (answers.length > 3) return undefined;
        const body = { type: 'dns-01', url: `https://127.0.0.1${call.path}`, status: 'pending', token: 'held', error: lookupFailed };
        return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), forward: false };
      }
      // Meanwhile the authorization reads pending, its challenge pending with the error.
      if (answer && answers.length > 0 && answers.length <= 3 && call.path.startsWith('/authZ/')) {
        const authz = jsonOf(answer.body) as { identifier?: { value: string }; challenges?: { type: string }[] } | undefined;
        if (!authz?.identifier || !mine(authz.identifier)) return undefined;
        const challenges = (authz.challenges ?? []).map((c) =>
          c.type === 'dns-01' ? { ...c, status: 'pending', error: lookupFailed } : c,
        );
        return { ...answer, body: Buffer.from(JSON.stringify({ ...authz, status: 'pending', challenges })) };
      }
      return undefined;
    };
    try {
      const { info, status } = await passesUntil(processId, (_i, s) => s !== 'RUNNING', 60);
      expect(status, JSON.stringify(info)).toBe('COMPLETED');
      expect(answers).toHaveLength(4);
      // Answered again at once, then after the back-off: 1 s, then 2 s (less up to a second: whole-second wire times).
      const gaps = answers.slice(1).map((t, i) => t - (answers[i] as number));
      expect(gaps[2] as number, JSON.stringify(gaps)).toBeGreaterThanOrEqual(1000);
      expect(gaps[2] as number, JSON.stringify(gaps)).toBeGreaterThan(gaps[0] as number);
      const notes = info.notes.map((n: { message: string }) => n.message).join('\n');
      expect(notes).toContain(`DNS problem: SERVFAIL looking up TXT for _acme-challenge.${name}`);
    } finally {
      proxy.rewrite = undefined;
    }
  }, 120_000);
});

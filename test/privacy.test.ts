import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { handler as dcvCheck } from '../functions/dcv-check/handler.ts';
import { handler as exchangeRates } from '../functions/exchange-rates/handler.ts';
import { generateApiKey, hashApiKey } from '../shared/auth/api-keys.ts';
import { db } from '../shared/db/client.ts';
import { putApiKey } from '../shared/db/repositories/api-keys.ts';
import { call, demoKey, limitedKey, otherKey } from './support/api.ts';
import { organizationFields, renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { captureOutput } from './support/logs.ts';
import { plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

// This file logs everything (DEBUG), and asks for the events to be logged too: the service must
// still keep secrets out. Set before any module creates the logger.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
});

/** Everything written to stdout and stderr while `fn` runs, as one text. */
async function captureAll(fn: () => Promise<void>): Promise<string> {
  return (await captureOutput(fn)).join('\n');
}

const sample = readFileSync(new URL('./fixtures/ecb/eurofxref-daily-2026-11-20.xml', import.meta.url), 'utf8');
const scheduled = (at: Date) =>
  ({ time: at.toISOString(), 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} }) as unknown as ScheduledEvent;
const context = { awsRequestId: 'job', functionName: 'job' } as Context;

describe('secrets never reach the logs', () => {
  it('a full run of every endpoint, its errors and the jobs logs no API key, auth code, CSR or approver phone number', async () => {
    const freshKey = generateApiKey();
    await putApiKey({
      keyHash: hashApiKey(freshKey),
      customer: 'demo',
      user: 'erin',
      permissions: [],
      createdDate: '2026-01-01T00:00:00Z',
    });
    const unknownKey = `unknown-${crypto.randomUUID()}`;
    const authcode = 'SECRET-AUTH-7f3a9c';
    const wrongAuthcode = 'WRONG-AUTH-1b2c3d';
    const approverVoice = '+44.2079460958';
    const saVoice = '+49.3012345678';
    const csr = makeCsr({ cn: 'www.demo-shop.nl' });
    const ovCsr = makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, ST=Noord-Holland, C=NL' });
    const brokenCsr = makeCsr({ cn: 'www.demo-shop.nl', breakSignature: true });
    await sandboxDomain('private-wait.com', { authcode });
    await sandboxDomain('private-now.com', { authcode, transfer: { stages: [], outcome: 'completed' } });
    const dv = await testCertificate();
    const ov = await testCertificate({
      product: 'ssl_sectigo_ov',
      commonName: 'demo-secure.com',
      san: ['demo-secure.com', 'www.demo-secure.com'],
    });
    const ecb = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/xml' }).end(sample));
    await new Promise<void>((resolve) => ecb.listen(0, '127.0.0.1', resolve));
    process.env.ECB_RATES_URL = `http://127.0.0.1:${(ecb.address() as AddressInfo).port}/eurofxref-daily.xml`;

    const statuses: number[] = [];
    const log = await captureAll(async () => {
      const track = async (p: Promise<{ status: number }>) => statuses.push((await p).status);
      const body = { customer: 'demo', registrant: 'demo-registrant', authcode };
      // Every endpoint, answered and refused, with every key.
      for (const key of [demoKey, limitedKey, otherKey, freshKey, unknownKey, 'bad key!']) {
        await track(call('GET', '/v2/providers/REGISTRY/sidn/info', { key }));
        await track(call('GET', '/v2/customers/demo/pricelist?currency=USD', { key }));
        await track(call('GET', '/v2/domains/demo-shop.nl/zone', { key, headers: { Accept: 'text/dns' } }));
        await track(call('GET', '/v2/processes/501/info', { key }));
      }
      await track(transfer('private-wait.com', body, { quote: true }));
      await track(transfer('private-wait.com', { ...body, authcode: wrongAuthcode }));
      await track(transfer('private-wait.com', { ...body, authcode: `${authcode}-${'x'.repeat(80)}` }));
      await track(transfer('private-wait.com', { ...body, surprise: authcode }));
      await track(
        call('POST', '/v2/domains/private-wait.com/transfer', {
          body: `{"customer":"demo","authcode":"${authcode}"`,
          headers: { 'Content-Type': 'application/json' },
        }),
      );
      await track(transfer('private-wait.com', body, { headers: { 'Idempotency-Key': 'privacy-run' } }));
      await track(transfer('private-wait.com', body, { headers: { 'Idempotency-Key': 'privacy-run' } }));
      await track(transfer('private-now.com', { ...body, zone: { template: 'demo-template' } }));
      await track(renew(dv.id, { period: 12, csr }, { quote: true }));
      await track(renew(dv.id, { period: 12, csr: brokenCsr }));
      await track(renew(dv.id, { period: 12, csr, approver: { ...organizationFields.approver, voice: approverVoice } }));
      await track(
        renew(ov.id, {
          period: 12,
          csr: ovCsr,
          ...organizationFields,
          approver: { ...organizationFields.approver, voice: 'call me maybe' },
        }),
      );
      await track(
        renew(ov.id, { period: 12, csr: ovCsr, ...organizationFields, approver: { ...organizationFields.approver, voice: saVoice } }),
      );
      const opened = await renew(dv.id, { period: 12, csr });
      statuses.push(opened.status);
      await track(call('GET', `/v2/processes/${opened.headers['x-process-id']}/info`));
      // Failures: a throttled store (503) and an unexpected error (500), both logged with their error;
      // the unexpected one quotes the secrets of the request it fails (redaction is per request).
      let quoting = '';
      for (const [name, fault] of [
        ['ThrottlingException', { $fault: 'client' }],
        ['ValidationException', { $fault: 'client', message: 'One or more parameter values were invalid:' }],
      ] as const) {
        const id = `fail-${name}`;
        db().middlewareStack.add(
          () => async () => {
            const message = 'message' in fault ? `${fault.message} ${quoting}` : 'Rate exceeded';
            throw Object.assign(new Error(message), { name, $metadata: {}, ...fault, message });
          },
          { step: 'initialize', name: id },
        );
        try {
          quoting = authcode;
          await track(transfer('private-wait.com', body));
          quoting = `${saVoice} ${ovCsr.split('\n')[1]}`;
          await track(
            renew(ov.id, { period: 12, csr: ovCsr, ...organizationFields, approver: { ...organizationFields.approver, voice: saVoice } }),
          );
        } finally {
          db().middlewareStack.remove(id);
        }
      }
      // The jobs.
      await poll(plus(new Date(), 30 * 86400));
      await dcvCheck(scheduled(new Date()), context);
      await exchangeRates(scheduled(new Date()), context);
    });
    ecb.close();
    delete process.env.ECB_RATES_URL;

    // The run did what it should (so the log has something to say) ...
    expect(statuses).toContain(200);
    expect(statuses).toContain(202);
    expect(statuses).toContain(400);
    expect(statuses).toContain(401);
    expect(statuses).toContain(500);
    expect(statuses).toContain(503);
    for (const route of ['provider-info', 'pricelist', 'zone', 'process-info', 'transfer', 'renew'])
      expect(log).toContain(`"route":"${route}"`);
    expect(log).toContain('request failed');
    expect(log).toContain('dcv check run');
    expect(log).toContain('exchange rates updated');
    // ... and not one secret.
    const csrLines = [csr, ovCsr, brokenCsr].flatMap((pem) => pem.split('\n').filter((l) => /^[A-Za-z0-9+/=]{40,}$/.test(l)));
    const secrets = [
      demoKey,
      limitedKey,
      otherKey,
      freshKey,
      unknownKey,
      authcode,
      wrongAuthcode,
      approverVoice,
      saVoice,
      'BEGIN CERTIFICATE REQUEST',
      ...csrLines,
    ];
    for (const secret of secrets) {
      const at = log.indexOf(secret);
      expect(at, `the log contains ${secret.slice(0, 16)}...: ${log.slice(Math.max(0, at - 300), at + 100)}`).toBe(-1);
    }
    // Nor the key hashes, which identify keys in the table.
    for (const key of [demoKey, otherKey, freshKey]) expect(log).not.toContain(hashApiKey(key));
  });
});

describe('secrets never reach an answer (contract section 2)', () => {
  const ovCertificate = () =>
    testCertificate({ product: 'ssl_sectigo_ov', commonName: 'demo-secure.com', san: ['demo-secure.com', 'www.demo-secure.com'] });
  const ovCsr = makeCsr({ subject: 'CN=demo-secure.com, O=Demo Hosting B.V., L=Amsterdam, C=NL' });

  it.each([
    ['a number', 98765432, 'expected string'],
    ['a boolean', true, 'expected string'],
    ['an object', { code: 'OBJECT-SECRET-1' }, 'expected string'],
    ['a list', ['LIST-SECRET-1234'], 'expected string'],
    ['a string over 64 characters', `LONG-SECRET-${'x'.repeat(60)}`, 'must be at most 64 characters long'],
  ])('never echoes an auth code of the wrong type (%s), in the message or as the value', async (_kind, authcode, message) => {
    const res = await transfer('transfer-wait.com', { customer: 'demo', registrant: 'demo-registrant', authcode });
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([{ field: 'authcode', message }]);
    expect(res.body.message).toBe(`authcode: ${message}`);
    for (const text of [String(authcode), ...(typeof authcode === 'object' ? Object.values(authcode).map(String) : [])]) {
      expect(res.raw).not.toContain(text);
    }
  });

  it('never echoes a phone number, a CSR or a DNSSEC key of the wrong type', async () => {
    const id = (await ovCertificate()).id;
    const approver = { ...organizationFields.approver, voice: 31612345678 };
    const voice = await renew(id, { ...organizationFields, approver, period: 12, csr: ovCsr, product: 'ssl_sectigo_ov' });
    expect(voice.status).toBe(400);
    expect(voice.body.violations).toEqual([{ field: 'approver.voice', message: 'expected string' }]);
    expect(voice.raw).not.toContain('31612345678');

    const csr = await renew(id, { period: 12, csr: 123456789012 });
    expect(csr.body.violations).toEqual([{ field: 'csr', message: 'must be a PEM encoded CSR' }]);
    expect(csr.raw).not.toContain('123456789012');

    const keyData = [{ protocol: 3, flags: 257, algorithm: 13, publicKey: 987654321987 }];
    const dnssec = await transfer('transfer-wait.com', { customer: 'demo', registrant: 'demo-registrant', keyData });
    expect(dnssec.body.violations).toEqual([{ field: 'keyData[0].publicKey', message: 'expected string' }]);
    expect(dnssec.raw).not.toContain('987654321987');
  });

  it('still echoes an ordinary field of the wrong type, so the caller sees what was wrong', async () => {
    const res = await transfer('transfer-wait.com', { customer: 'demo', registrant: 98765432 });
    expect(res.body.violations).toEqual([{ field: 'registrant', message: 'expected string but received 98765432', value: 98765432 }]);
  });
});

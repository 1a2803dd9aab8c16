import { describe, expect, it } from 'vitest';
import { call, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/** GET /v2/domains/{domainName}/transfer/{processId}: where a transfer of the caller stands, and its log. */

const info = (name: string, id: number | string, key?: string) => call('GET', `/v2/domains/${name}/transfer/${id}`, key ? { key } : {});

describe('GET /v2/domains/{domainName}/transfer/{processId}', () => {
  it('answers a pending transfer: the transfer result, the losing registrar and the log so far', async () => {
    const started = await transfer('transfer-wait.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    const res = await info('transfer-wait.com', started.body.processId);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeDefined();
    expect(res.body).toEqual({
      domainName: 'transfer-wait.com',
      status: 'pending',
      requestedDate: started.body.requestedDate,
      actionDate: started.body.actionDate,
      type: 'IN',
      processId: started.body.processId,
      registrar: 'Example Registrar, Inc.',
      log: [{ date: started.body.requestedDate, status: 'pending', message: 'Pending at the registry.' }],
    });
  });

  it('logs every status a transfer went through, through to completion with its expiry date', async () => {
    const started = await transfer('transfer-whois.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    const at = (seconds: number) => plus(started.body.requestedDate, seconds);
    for (const seconds of [3601, 3600 + 86_401, 3600 + 86_400 + 5 * 86_400 + 1]) await poll(at(seconds));
    const res = await info('transfer-whois.net', started.body.processId);
    expect(res.body).toEqual({
      domainName: 'transfer-whois.net',
      status: 'completed',
      requestedDate: started.body.requestedDate,
      expiryDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      type: 'IN',
      processId: started.body.processId,
      registrar: 'Slow Whois Registrar SARL',
      log: [
        { date: started.body.requestedDate, status: 'pendingwhois', message: 'Pending for whois information.' },
        { date: expect.any(String), status: 'pendingvalidation', message: 'Pending registrant validation.' },
        { date: expect.any(String), status: 'pending', message: 'Pending at the registry.' },
        { date: expect.any(String), status: 'completed', message: 'The transfer is completed.' },
      ],
    });
  });

  it("carries the registry's reason for a rejected transfer", async () => {
    const started = await transfer('transfer-rejected.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    await poll(plus(started.body.requestedDate, 2 * 86_400 + 1));
    const res = await info('transfer-rejected.com', started.body.processId);
    expect(res.body.status).toBe('rejected');
    expect(res.body.log[1]).toEqual({
      date: expect.any(String),
      status: 'rejected',
      message: expect.stringMatching(/^Rejected by the registry or the registrant\. .+/),
    });
  });

  it("answers 404 alike for another domain, another customer's transfer, a process that is no transfer, and none at all", async () => {
    await sandboxDomain('theirs-info.com');
    const theirs = await transfer(
      'theirs-info.com',
      { customer: 'other', registrant: 'other-registrant', authcode: 'TEST-CODE' },
      { key: otherKey },
    );
    expect((await info('theirs-info.com', theirs.body.processId, otherKey)).status).toBe(200);
    const mine = await transfer('transfer-foa.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    const renewal = await renew((await testCertificate()).id, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }) });
    const cases: [string, string][] = [
      ['theirs-info.com', String(theirs.body.processId)],
      ['transfer-wait.com', String(mine.body.processId)],
      ['www.demo-shop.nl', String(renewal.headers['x-process-id'])],
      ['transfer-foa.net', '999999'],
    ];
    for (const [name, id] of cases) {
      const res = await info(name, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        type: 'ObjectDoesNotExist',
        message: `Transfer '${id}' does not exist.`,
        objectType: 'Transfer',
        identifier: id,
        requestId: res.headers['x-request-id'],
      });
    }
  });
});

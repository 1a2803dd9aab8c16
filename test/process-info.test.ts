import { describe, expect, it } from 'vitest';
import { handler } from '../functions/process-info/handler.ts';
import { completeValidationManager } from '../shared/certificates/validation-manager.ts';
import { putProcess } from '../shared/db/repositories/processes.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { sandboxDomain, transfer } from './support/transfer.ts';

const linkPattern = /^https:\/\/validation-manager\.sandbox\.invalid\/validate\?token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

describe('GET /v2/processes/{id}/info', () => {
  it('answers an OV request whose organization validation needs attention, with a one-time link and the next action', async () => {
    const res = await call('GET', '/v2/processes/501/info');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeDefined();
    expect(res.body).toEqual({
      requiresAttention: true,
      oneTimeLink: expect.stringMatching(linkPattern),
      commonName: 'shop.demo-secure.com',
      validations: {
        organization: 'ATTENTION',
        docs: 'VALIDATED',
        voice: 'WAITING',
        agreement: 'VALIDATED',
        whois: 'VALIDATED',
        dcv: [
          {
            commonName: 'shop.demo-secure.com',
            type: 'EMAIL',
            email: 'admin@demo-secure.com',
            status: 'VALIDATED',
            caaRecordStatus: 'EMPTY',
          },
          {
            commonName: 'www.shop.demo-secure.com',
            type: 'FILE',
            fileLocation: expect.stringMatching(/^http:\/\/www\.shop\.demo-secure\.com\/\.well-known\/pki-validation\/[0-9A-F]{32}\.txt$/),
            fileContents: expect.stringMatching(/^[0-9a-f]{64}\nsectigo\.com\ndemo501shop$/),
            status: 'WAITING',
            caaRecordStatus: 'EMPTY',
          },
        ],
      },
      notes: [expect.objectContaining({ type: 'INCOMING' })],
      nextAction: {
        message: expect.any(String),
        steps: [
          {
            kind: 'OPEN_VALIDATION_MANAGER',
            message: "Complete the organization validation in the certificate authority's validation manager (oneTimeLink).",
          },
          {
            kind: 'PLACE_FILE',
            commonName: 'www.shop.demo-secure.com',
            message: expect.stringMatching(/^Publish http:\/\/www\.shop\.demo-secure\.com\//),
          },
          { kind: 'WAIT_FOR_AUTHORITY', message: 'The certificate authority is checking: voice.' },
        ],
      },
      csrSummary: expect.objectContaining({ commonName: 'shop.demo-secure.com', keyType: 'RSA', keySize: 2048 }),
      mismatches: [],
    });
    const again = await call('GET', '/v2/processes/501/info', { headers: { 'If-None-Match': res.headers.etag as string } });
    expect(again.status).toBe(304);
  });

  it('answers the acme shape with a one-time link while the agreement needs attention', async () => {
    const res = await call('GET', '/v2/processes/502/info');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      requiresAttention: true,
      oneTimeLink: expect.stringMatching(linkPattern),
      validations: { organization: 'VALIDATED', docs: 'VALIDATED', voice: 'VALIDATED', agreement: 'ATTENTION' },
      nextAction: {
        message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
        steps: [
          {
            kind: 'OPEN_VALIDATION_MANAGER',
            message: "Complete the agreement validation in the certificate authority's validation manager (oneTimeLink).",
          },
        ],
      },
    });
  });

  it('links to the configured validation manager', async () => {
    process.env.VALIDATION_MANAGER_URL = 'https://vm.sectigo.example/manage';
    try {
      const res = await invoke(
        handler,
        apiEvent({
          method: 'GET',
          path: '/v2/processes/502/info',
          resource: '/v2/processes/{processId}/info',
          pathParameters: { processId: '502' },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body.oneTimeLink).toMatch(/^https:\/\/vm\.sectigo\.example\/manage\?token=/);
    } finally {
      delete process.env.VALIDATION_MANAGER_URL;
    }
  });

  it("shows another customer's process only to that customer", async () => {
    const foreign = await call('GET', '/v2/processes/601/info');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Process '601' does not exist.",
      objectType: 'Process',
      identifier: '601',
      requestId: foreign.headers['x-request-id'],
    });
    const own = await call('GET', '/v2/processes/601/info', { key: otherKey });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      requiresAttention: false,
      commonName: 'blog.other-site.com',
      validations: {
        dcv: [
          {
            commonName: 'blog.other-site.com',
            type: 'EMAIL',
            email: 'webmaster@other-site.com',
            status: 'WAITING',
            caaRecordStatus: 'EMPTY',
          },
        ],
      },
      nextAction: {
        steps: [
          {
            kind: 'APPROVE_EMAIL',
            commonName: 'blog.other-site.com',
            message: 'Approve the validation e-mail sent to webmaster@other-site.com.',
          },
        ],
      },
    });
    expect(own.body.oneTimeLink).toBeUndefined();
    expect((await call('GET', '/v2/processes/501/info', { key: otherKey })).status).toBe(404);
  });

  it('answers 404 for an unknown process and 400 for a malformed id', async () => {
    expect((await call('GET', '/v2/processes/999999/info')).status).toBe(404);
    const bad = await call('GET', '/v2/processes/0/info');
    expect(bad.status).toBe(400);
    expect(bad.body.violations).toEqual([{ field: 'processId', message: 'must be a positive integer', value: '0' }]);
  });

  it('answers 400 for a process type without info', async () => {
    await putProcess({
      id: 777,
      customer: 'demo',
      user: 'alice',
      type: 'domain',
      action: 'update',
      identifier: 'demo-shop.nl',
      status: 'COMPLETED',
      createdDate: '2026-01-01T00:00:00Z',
      updatedDate: '2026-01-01T00:00:00Z',
      billables: [],
    });
    const res = await call('GET', '/v2/processes/777/info');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ValidationError',
      message: 'There is no info for processes of type domain (action update).',
      requestId: res.headers['x-request-id'],
    });
  });

  it('answers the transfer result for a domain transfer process', async () => {
    await sandboxDomain('info-transfer.com');
    const started = await transfer('info-transfer.com', { customer: 'demo', registrant: 'demo-registrant', authcode: 'TEST-CODE' });
    expect(started.status).toBe(202);
    const res = await call('GET', `/v2/processes/${started.body.processId}/info`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(started.body);
  });
});

describe('the validation manager behind a one-time link', () => {
  it('resolves the attention once the customer completed it, and accepts the link only once', async () => {
    const before = await call('GET', '/v2/processes/502/info');
    const done = await completeValidationManager(before.body.oneTimeLink, new Date());
    expect(done).toEqual({
      processId: 502,
      validations: { organization: 'VALIDATED', docs: 'VALIDATED', voice: 'VALIDATED', agreement: 'VALIDATED' },
    });
    const after = await call('GET', '/v2/processes/502/info');
    expect(after.body).toEqual({
      requiresAttention: false,
      validations: { organization: 'VALIDATED', docs: 'VALIDATED', voice: 'VALIDATED', agreement: 'VALIDATED' },
    });
    await expect(completeValidationManager(before.body.oneTimeLink, new Date())).rejects.toThrow('link already used');
  });
});

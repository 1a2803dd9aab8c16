import { describe, expect, it } from 'vitest';
import { forgetCatalogue } from '../shared/certificates/catalogue.ts';
import { checkOpenRequests } from '../shared/certificates/dcv-check.ts';
import { getCertificateAuthority, putCertificateAuthority } from '../shared/db/repositories/certificates.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { getRegistryDomainWithTransfer } from '../shared/db/repositories/registry-domains.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { beforeFirstCall } from './support/sdk-calls.ts';
import { changedKeys, snapshotTable } from './support/table-writes.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * POST /v2/processes/{processId}/resend: a pendingfoa transfer's FOA e-mail (the sandbox registry
 * records it) and a certificate request's DCV e-mails (the sandbox authority's record and a note
 * on the process); visible on the process, refused elsewhere.
 */

const resend = (id: number | string, options: Parameters<typeof call>[2] = {}) => call('POST', `/v2/processes/${id}/resend`, options);
/** As the PHP SDK sends it: a JSON content type and no body at all. */
const phpResend = (id: number) => resend(id, { headers: { 'Content-Type': 'application/json' } });
let serial = 0;

/** A fresh transfer waiting for its FOA (an hour, then approved for an hour, then completed). */
async function foaTransfer(): Promise<{ name: string; id: number; requestedDate: string }> {
  const name = `resend-${process.pid}-${++serial}.net`;
  await sandboxDomain(name, {
    transfer: {
      stages: [
        { status: 'pendingfoa', seconds: 3600 },
        { status: 'approved', seconds: 3600 },
      ],
      outcome: 'completed',
    },
  });
  const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
  expect(started.body.status).toBe('pendingfoa');
  return { name, id: started.body.processId, requestedDate: started.body.requestedDate };
}

async function registryResends(name: string, requestedDate: string): Promise<string[]> {
  return (await getRegistryDomainWithTransfer(name, requestedDate)).transfer?.foaResent ?? [];
}

describe('POST /v2/processes/{processId}/resend: a transfer waiting for its FOA', () => {
  it('has the registry send the FOA again, records it on the process and in the transfer log, with or without a body', async () => {
    const { name, id, requestedDate } = await foaTransfer();
    expect((await call('GET', `/v2/processes/${id}?fields=resumeTypes`)).body).toEqual({ resumeTypes: ['CANCEL', 'RESEND'] });
    const res = await phpResend(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'RUNNING', statusDetail: 'pendingfoa', resumeTypes: ['CANCEL', 'RESEND'] });
    const sent = await registryResends(name, requestedDate);
    expect(sent).toEqual([res.body.updatedDate]);
    expect((await call('GET', `/v2/processes/${id}`)).body.updatedDate).toBe(res.body.updatedDate);
    // As the TS SDK sends it: an empty JSON object.
    expect((await resend(id, { body: {} })).status).toBe(200);
    expect(await registryResends(name, requestedDate)).toHaveLength(2);
    const info = await call('GET', `/v2/domains/${name}/transfer/${id}`);
    expect(info.body.log).toEqual([
      { date: requestedDate, status: 'pendingfoa', message: 'Pending approval from an authorized contact.' },
      { date: sent[0], status: 'pendingfoa', message: 'The FOA e-mail was sent again.' },
      { date: expect.any(String), status: 'pendingfoa', message: 'The FOA e-mail was sent again.' },
    ]);
    // The poller moves it on as before (the resends moved the version on with the pending state).
    expect(await poll(plus(requestedDate, 3601))).toMatchObject({ moved: 1, errors: 0 });
    expect((await call('GET', `/v2/processes/${id}`)).body).toMatchObject({ statusDetail: 'approved', resumeTypes: ['CANCEL'] });
  });

  it('refuses a body with fields, and a body of another content type', async () => {
    const { id } = await foaTransfer();
    const fields = await resend(id, { body: { force: true } });
    expect(fields.status).toBe(400);
    expect(fields.body).toMatchObject({ type: 'UnrecognizedPropertyException', property: 'force' });
    const text = await resend(id, { body: 'again', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('refuses once the transfer no longer waits for its FOA, and after ten resends', async () => {
    await sandboxDomain('resend-pending.com');
    const pending = await transfer('resend-pending.com', { ...demoBody, authcode: 'TEST-CODE' });
    const refused = await resend(pending.body.processId);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      type: 'ObjectStatusProhibitsOperation',
      message: `Process ${pending.body.processId} cannot resend its FOA e-mail (it is RUNNING, transfer pending).`,
      requestId: refused.headers['x-request-id'],
    });
    const { name, id, requestedDate } = await foaTransfer();
    for (let i = 0; i < 10; i++) expect((await resend(id)).status).toBe(200);
    const eleventh = await resend(id);
    expect(eleventh.status).toBe(400);
    expect((await call('GET', `/v2/processes/${id}?fields=resumeTypes`)).body).toEqual({ resumeTypes: ['CANCEL'] });
    expect(await registryResends(name, requestedDate)).toHaveLength(10);
  });

  it('refuses when the registry has moved on before the poller recorded it, and writes nothing of ours', async () => {
    const name = `resend-moved-${process.pid}.net`;
    await sandboxDomain(name, {
      transfer: {
        stages: [
          { status: 'pendingfoa', seconds: 1 },
          { status: 'approved', seconds: 3600 },
        ],
        outcome: 'completed',
      },
    });
    const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = await snapshotTable();
    const res = await resend(started.body.processId);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`The registry no longer waits for the FOA of the transfer of ${name} (it is approved).`);
    expect(changedKeys(before, await snapshotTable())).toEqual([]);
  });

  it("racing the poller that moves the transfer on: the resend answers 400 and the poller's move stands", async () => {
    const { id, requestedDate } = await foaTransfer();
    const remove = beforeFirstCall(
      (command, partitions) => command === 'TransactWriteItemsCommand' && partitions.includes(`PROCESS#${id}`),
      async () => {
        await poll(plus(requestedDate, 3601));
      },
    );
    let res: ApiResponse;
    try {
      res = await resend(id);
    } finally {
      remove();
    }
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`Process ${id} cannot resend its FOA e-mail (it is RUNNING, transfer approved).`);
    const d = (await getProcess(id, 'demo'))?.details as { status: string; foaResent?: string[] };
    expect({ status: d.status, foaResent: d.foaResent }).toEqual({ status: 'approved', foaResent: undefined });
  });

  it('20 concurrent resends, each with its own Idempotency-Key: the registry sends exactly the 10 allowed, each recorded, the rest refused', async () => {
    const { name, id, requestedDate } = await foaTransfer();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        resend(id, { headers: { 'Idempotency-Key': crypto.randomUUID(), 'Content-Type': 'application/json' } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(400)]);
    expect(await registryResends(name, requestedDate)).toHaveLength(10);
    const d = (await getProcess(id, 'demo'))?.details as { foaResent?: string[] };
    expect(d.foaResent).toHaveLength(10);
    expect((await resend(id)).status).toBe(400);
    expect(await registryResends(name, requestedDate)).toHaveLength(10);
  });

  it('replays the first answer to a retry with the same Idempotency-Key, and the registry sends once', async () => {
    const { name, id, requestedDate } = await foaTransfer();
    const headers = { 'Idempotency-Key': crypto.randomUUID(), 'Content-Type': 'application/json' };
    const first = await resend(id, { headers });
    const retry = await resend(id, { headers });
    expect({ status: retry.status, body: retry.body, replayed: retry.headers['idempotent-replayed'] }).toEqual({
      status: 200,
      body: first.body,
      replayed: 'true',
    });
    expect(await registryResends(name, requestedDate)).toHaveLength(1);
  });
});

describe('POST /v2/processes/{processId}/resend: a certificate request with an EMAIL validation', () => {
  async function emailRenewal(): Promise<number> {
    const certificate = await testCertificate();
    const res = await renew(certificate.id, {
      period: 12,
      csr: makeCsr({ cn: 'www.demo-shop.nl' }),
      dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }],
    });
    expect(res.status).toBe(202);
    return Number(res.headers['x-process-id']);
  }

  it("refuses a request whose e-mail validations are done, an acme process, and another customer's request", async () => {
    const none = await resend(501);
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('Process 501 cannot resend its DCV e-mails (it is RUNNING).');
    expect((await resend(502)).body.message).toBe('Process 502 (acme request) cannot resend an e-mail.');
    const foreign = await resend(601);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ type: 'ObjectDoesNotExist', objectType: 'Process', identifier: '601' });
    const theirs = await resend(601, { key: otherKey });
    expect(theirs.status).toBe(200);
  });

  it('has the authority send the DCV e-mails again: a note on the process, its record kept, the validations untouched', async () => {
    const id = await emailRenewal();
    expect((await call('GET', `/v2/processes/${id}?fields=resumeTypes`)).body).toEqual({ resumeTypes: ['CANCEL', 'RESEND'] });
    const before = (await call('GET', `/v2/processes/${id}/info`)).body;
    const res = await phpResend(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'RUNNING', resumeTypes: ['CANCEL', 'RESEND'] });
    const info = (await call('GET', `/v2/processes/${id}/info`)).body;
    expect(info.notes).toEqual([
      {
        createdDate: res.body.updatedDate,
        type: 'OUTGOING',
        message: 'The DCV e-mail was sent again for demo-shop.nl (to postmaster@demo-shop.nl).',
      },
    ]);
    expect(info.validations).toEqual(before.validations);
    const stored = (await getProcess(id, 'demo'))?.details as { dcvEmailResends: unknown };
    expect(stored.dcvEmailResends).toEqual([{ date: res.body.updatedDate, commonNames: ['demo-shop.nl'] }]);
    // The DCV check records its findings without losing the resend.
    await checkOpenRequests(new Date(Date.now() + 5000));
    expect((await call('GET', `/v2/processes/${id}/info`)).body.notes).toEqual(info.notes);
  });

  it('answers 503 and writes nothing while the authority cannot be reached', async () => {
    const id = await emailRenewal();
    const sectigo = await getCertificateAuthority('sectigo');
    if (!sectigo) throw new Error('sectigo missing');
    await putCertificateAuthority({ ...sectigo, sandbox: { ...sectigo.sandbox, unavailable: true } });
    forgetCatalogue();
    try {
      const before = await snapshotTable();
      const res = await resend(id);
      expect(res.status).toBe(503);
      expect(changedKeys(before, await snapshotTable())).toEqual([]);
    } finally {
      await putCertificateAuthority(sectigo);
      forgetCatalogue();
    }
  });
});

describe("POST /v2/processes/{processId}/resend with a dcv list: the SDKs' resendDcv", () => {
  /**
   * A renewal of www.demo-shop.nl (and its free demo-shop.nl) in the caller's managed zone: by DNS
   * (the records are added to the zone), or with demo-shop.nl by e-mail.
   */
  async function dnsRenewal(dcv?: unknown[]): Promise<number> {
    const certificate = await testCertificate();
    const res = await renew(certificate.id, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }), ...(dcv ? { dcv } : {}) });
    expect(res.status).toBe(202);
    return Number(res.headers['x-process-id']);
  }
  const dcvOf = async (id: number) =>
    (await call('GET', `/v2/processes/${id}/info`)).body.validations.dcv as { commonName: string; type: string; status: string }[];

  it('changes the method of the named names and retries them; the others stay as they were', async () => {
    const id = await dnsRenewal();
    const before = await dcvOf(id);
    const names = before.map((e) => e.commonName);
    expect(names).toContain('demo-shop.nl');
    const res = await resend(id, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'hostmaster@demo-shop.nl' }] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'RUNNING', resumeTypes: ['CANCEL', 'RESEND'] });
    const info = (await call('GET', `/v2/processes/${id}/info`)).body;
    const changed = info.validations.dcv.find((e: { commonName: string }) => e.commonName === 'demo-shop.nl');
    expect(changed).toEqual({
      commonName: 'demo-shop.nl',
      type: 'EMAIL',
      email: 'hostmaster@demo-shop.nl',
      status: 'WAITING',
      caaRecordStatus: expect.any(String),
      ...(changed.riskStatus ? { riskStatus: 'WAITING' } : {}),
    });
    for (const other of before.filter((e) => e.commonName !== 'demo-shop.nl')) {
      expect(info.validations.dcv.find((e: { commonName: string }) => e.commonName === other.commonName)).toEqual(other);
    }
    expect(info.notes).toEqual([
      {
        createdDate: res.body.updatedDate,
        type: 'OUTGOING',
        message: 'The DCV was retried for demo-shop.nl by EMAIL (to hostmaster@demo-shop.nl).',
      },
    ]);
    const stored = (await getProcess(id, 'demo'))?.details as { dcvEmailResends: unknown };
    expect(stored.dcvEmailResends).toEqual([{ date: res.body.updatedDate, commonNames: ['demo-shop.nl'] }]);
    // Back to FILE: the file's instructions, waiting again.
    const file = await resend(id, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'FILE' }] } });
    expect(file.status).toBe(200);
    expect((await dcvOf(id)).find((e) => e.commonName === 'demo-shop.nl')).toMatchObject({
      type: 'FILE',
      status: 'WAITING',
      fileLocation: expect.stringMatching(/^http:\/\/demo-shop\.nl\/\.well-known\/pki-validation\/[0-9A-F]{32}\.txt$/),
    });
  });

  it('refuses names not in the request, an EMAIL without an approver address, and a transfer, naming each entry; nothing is written', async () => {
    const id = await dnsRenewal();
    const before = await snapshotTable();
    const res = await resend(id, {
      body: {
        dcv: [
          { commonName: 'elsewhere.nl', type: 'DNS' },
          { commonName: 'demo-shop.nl', type: 'EMAIL' },
          { commonName: 'www.demo-shop.nl', type: 'EMAIL', email: 'someone@example.com' },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'ValidationError', message: 'The DCV entries cannot be changed.' });
    expect(res.body.violations.map((v: { field: string }) => v.field)).toEqual(['dcv[0].commonName', 'dcv[1].email', 'dcv[2].email']);
    const malformed = await resend(id, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'POST' }] } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ type: 'ConstraintViolationException', violations: [{ field: 'dcv[0].type' }] });
    const { id: transferId } = await foaTransfer();
    const afterTransfer = await snapshotTable();
    const onTransfer = await resend(transferId, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'DNS' }] } });
    expect(onTransfer.status).toBe(400);
    expect(onTransfer.body.message).toBe(`Process ${transferId} (domain transfer) cannot retry a DCV.`);
    expect(changedKeys(afterTransfer, await snapshotTable())).toEqual([]);
    expect(changedKeys(before, afterTransfer).filter((k) => k.includes(`PROCESS#${id}`))).toEqual([]);
  });

  it('refuses a validated name, and a request that no longer runs', async () => {
    const emailed = await dnsRenewal([{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }]);
    // The DNS record in the managed zone is found; the e-mail is not answered yet.
    await checkOpenRequests(new Date(Date.now() + 1000));
    expect((await dcvOf(emailed)).find((e) => e.commonName === 'www.demo-shop.nl')?.status).toBe('VALIDATED');
    const validated = await resend(emailed, { body: { dcv: [{ commonName: 'www.demo-shop.nl', type: 'FILE' }] } });
    expect(validated.status).toBe(400);
    expect(validated.body).toMatchObject({
      type: 'ValidationError',
      violations: [{ field: 'dcv[0].commonName', message: 'is validated already', value: 'www.demo-shop.nl' }],
    });
    const id = await dnsRenewal();
    // Every record is found and the certificate issued.
    await checkOpenRequests(new Date(Date.now() + 1000));
    const done = await resend(id, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'DNS' }] } });
    expect(done.status).toBe(400);
    expect(done.body).toMatchObject({
      type: 'ObjectStatusProhibitsOperation',
      message: `Process ${id} cannot retry its DCV (it is COMPLETED).`,
    });
  });

  it('racing the DCV check that records new findings: answers 503, writes nothing, and the findings stand', async () => {
    const id = await dnsRenewal([{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }]);
    const remove = beforeFirstCall(
      (command, partitions) => command === 'UpdateItemCommand' && partitions.includes(`PROCESS#${id}`),
      async () => {
        await checkOpenRequests(new Date(Date.now() + 1000));
      },
    );
    const before = await getProcess(id, 'demo');
    let res: ApiResponse;
    try {
      res = await resend(id, { body: { dcv: [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'admin@demo-shop.nl' }] } });
    } finally {
      remove();
    }
    const after = await getProcess(id, 'demo');
    // The check recorded the DNS record it found in the managed zone.
    expect(after?.updatedDate).not.toBe(before?.updatedDate);
    expect(after?.status).toBe('RUNNING');
    expect(res.status, res.raw).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect((after?.details as { dcvEmailResends?: unknown } | undefined)?.dcvEmailResends).toBeUndefined();
  });
});

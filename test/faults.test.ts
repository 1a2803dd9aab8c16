import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as dcvCheckHandler } from '../functions/dcv-check/handler.ts';
import { createGateway } from '../infra/local/gateway.ts';
import { forgetCatalogue } from '../shared/certificates/catalogue.ts';
import { db } from '../shared/db/client.ts';
import { getCertificateAuthority, putCertificateAuthority } from '../shared/db/repositories/certificates.ts';
import { type ApiResponse, call } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { internalText } from './support/contract.ts';
import { makeCsr } from './support/csr.ts';
import { changedKeys, snapshotTable, unnamedZoneRecords } from './support/table-writes.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * Faults at the AWS SDK boundary (a middleware on the shared DynamoDB client) and in the sandbox
 * registry and authority. For every table call a request makes, the request is repeated with that
 * call failing: the answer is 503 ProviderUnavailable with Retry-After (never a 500 or internal
 * text) and the table is as before, apart from id counters (an allocated id may stay unused).
 */

type Fault = { name: string; error: () => Error };

const sdkError =
  (name: string, message: string, fault: 'client' | 'server', extra: Record<string, unknown> = {}) =>
  () =>
    Object.assign(new Error(message), { name, $fault: fault, $metadata: { httpStatusCode: fault === 'server' ? 500 : 400 }, ...extra });

/** The failures DynamoDB (and the SDK in front of it) surfaces once its own retries are spent. */
const faults: Fault[] = [
  { name: 'ThrottlingException', error: sdkError('ThrottlingException', 'Rate of requests exceeds the allowed throughput.', 'client') },
  {
    name: 'ProvisionedThroughputExceededException',
    error: sdkError(
      'ProvisionedThroughputExceededException',
      'The level of configured provisioned throughput for the table was exceeded.',
      'client',
    ),
  },
  {
    name: 'RequestLimitExceeded',
    error: sdkError('RequestLimitExceeded', 'Throughput exceeds the current throughput limit for your account.', 'client'),
  },
  { name: 'TimeoutError', error: () => Object.assign(new Error('Connection timed out after 3000 ms'), { name: 'TimeoutError' }) },
  { name: 'ECONNRESET', error: () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) },
  { name: 'InternalServerError', error: sdkError('InternalServerError', 'Internal server error', 'server') },
  { name: 'ServiceUnavailable', error: sdkError('ServiceUnavailable', 'Service unavailable', 'server') },
  {
    name: 'TransactionConflictException',
    error: sdkError('TransactionConflictException', 'Transaction is ongoing for the item', 'client'),
  },
  {
    name: 'TransactionCanceledException (conflict)',
    error: sdkError(
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
      'client',
      {
        CancellationReasons: [
          { Code: 'None' },
          { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' },
          { Code: 'None' },
        ],
      },
    ),
  },
];

interface TableCall {
  command: string;
  key: string;
}

function firstKey(input: Record<string, any>): string {
  const plain = (a: any) => (a && typeof a === 'object' && 'S' in a ? a.S : a);
  const item =
    input.Key ??
    input.Item ??
    input.TransactItems?.[0]?.Put?.Item ??
    input.TransactItems?.[0]?.Update?.Key ??
    input.TransactItems?.[0]?.Delete?.Key;
  if (item) return `${plain(item.pk)}#${plain(item.sk)}`;
  const values = input.ExpressionAttributeValues;
  if (values?.[':pk']) return String(plain(values[':pk']));
  if (input.RequestItems) return 'batch';
  return '';
}

/**
 * Runs `fn` with the `failAt`-th table call (0-based) failing with `fault` (none: -1), and answers
 * the calls made up to and including it.
 */
async function withFault<T>(failAt: number, fault: Fault | undefined, fn: () => Promise<T>): Promise<{ result: T; calls: TableCall[] }> {
  const calls: TableCall[] = [];
  const name = `fault-${crypto.randomUUID()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const index = calls.length;
      calls.push({ command: String(context.commandName), key: firstKey(args.input as Record<string, any>) });
      if (index === failAt && fault) throw fault.error();
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await fn(), calls };
  } finally {
    db().middlewareStack.remove(name);
  }
}

/** The 503 every fault must produce: the contract body, Retry-After, nothing internal. */
function expectUnavailable(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: ${res.raw}`).toBe(503);
  expect(res.body, label).toEqual({ type: 'ProviderUnavailable', message: expect.any(String), requestId: res.headers['x-request-id'] });
  expect(res.headers['retry-after'], label).toMatch(/^[1-9][0-9]*$/);
  expect(internalText(res.raw), label).toBeUndefined();
}

/**
 * Nothing visible changed: id counters apart, zone records no header names (which no reader sees),
 * and the sandbox registry's record of a cancellation or FOA resend it made (the registry acted
 * before our write failed, as a real one would have; a retry finds it and goes on), with the slot
 * that e-mail took (shared/db/repositories/effect-slots.ts: it was sent, so it counts toward the limit),
 * and a job's record of its own run (`JOBRUN`, shared/db/repositories/job-runs.ts: the job ran).
 */
async function expectUnchanged(before: Map<string, string>, label: string): Promise<void> {
  const after = await snapshotTable();
  const unnamed = unnamedZoneRecords(after);
  const registryActed = (k: string) => (k.startsWith('REGISTRYDOMAIN#') && k.includes('#TRANSFER#')) || /^PROCESS#\d+#SLOTS#/.test(k);
  const changed = changedKeys(before, after).filter(
    (k) => !k.startsWith('COUNTER#') && !k.startsWith('JOBRUN#') && !unnamed.has(k) && !registryActed(k),
  );
  expect(changed, label).toEqual([]);
}

let injected = 0;

afterAll(() => {
  console.log(`faults: ${injected} injected at the SDK boundary`);
});

/**
 * The request's table calls, found by running it once; then the request again (on fresh objects,
 * from `setup`) with each call failing in turn, rotating through every kind of fault.
 */
async function everyStep(
  label: string,
  setup: () => Promise<() => Promise<ApiResponse>>,
  onAccepted?: (res: ApiResponse, changed: string[]) => void,
  /** Retries each request that failed (same objects, no fault) and checks what the retry wrote. */
  onRetried?: (res: ApiResponse, changed: string[]) => void,
): Promise<number> {
  const clean = await setup();
  const { result: ok, calls } = await withFault(-1, undefined, clean);
  expect(ok.status, `${label} without faults: ${ok.raw}`).toBeLessThan(300);
  if (process.env.FAULTS_DEBUG) console.log(label, calls);
  for (let step = 0; step < calls.length; step++) {
    const fault = faults[(step + injected) % faults.length] as Fault;
    const run = await setup();
    const before = await snapshotTable();
    const { result: res, calls: made } = await withFault(step, fault, run);
    const where = `${label}, call ${step} (${calls[step]?.command} ${calls[step]?.key}) failing with ${fault.name}`;
    if (made.length <= step) {
      // The call was not made this time (a cached read, such as the exchange rates): nothing failed.
      expect(res.status, `${where}: ${res.raw}`).toBeLessThan(300);
      continue;
    }
    expect(made[step], where).toEqual({ command: calls[step]?.command, key: expect.any(String) });
    injected++;
    if (/conflict/i.test(fault.name) && calls[step]?.command.startsWith('TransactWrite') && res.status < 300) {
      // Transactions retry a lost race (transactions.ts): a conflict may end in a complete write.
      onAccepted?.(
        res,
        changedKeys(before, await snapshotTable()).filter((k) => !k.startsWith('COUNTER#')),
      );
      continue;
    }
    expectUnavailable(res, where);
    await expectUnchanged(before, where);
    if (onRetried) {
      const retried = await run();
      expect(retried.status, `${where}, retried: ${retried.raw}`).toBeLessThan(300);
      onRetried(
        retried,
        changedKeys(before, await snapshotTable()).filter((k) => !k.startsWith('COUNTER#')),
      );
    }
  }
  return calls.length;
}

const csr = makeCsr({ cn: 'www.demo-shop.nl' });
let serial = 0;
const fresh = async () => {
  const name = `fault-${++serial}.com`;
  await sandboxDomain(name);
  return name;
};

beforeAll(async () => {
  // Warm the authorizer cache of the shared gateway, as API Gateway would be for a busy key.
  expect((await call('GET', '/v2/providers/REGISTRY/sidn/info')).status).toBe(200);
});

describe('faults at the SDK boundary, at every table call of every endpoint', () => {
  it('GET provider info, price list (converted), zone (JSON and zone file) and process info answer 503 and write nothing', async () => {
    const reads = [
      '/v2/providers/REGISTRY/verisign/info',
      '/v2/customers/demo/pricelist?currency=USD',
      '/v2/domains/demo-shop.nl/zone',
      '/v2/processes/501/info',
      '/v2/processes/502/info',
    ];
    for (const url of reads) {
      const steps = await everyStep(`GET ${url}`, async () => () => call('GET', url));
      expect(steps, url).toBeGreaterThan(0);
    }
    await everyStep('GET zone file', async () => () => call('GET', '/v2/domains/demo-shop.nl/zone', { headers: { Accept: 'text/dns' } }));
  });

  // A transfer's calls: the reads (one BatchGet, the price list), the registry's look and its
  // submission, then the one transaction recording it. Nothing of ours is written before the
  // registry has taken the transfer and everything after it is one transaction, so a fault at any
  // call leaves nothing, and the retry (the registry answers a transfer it holds with its state)
  // records the transfer once.
  const oneTransfer = (res: ApiResponse, changed: string[]) => {
    expect(changed.map((k) => k.replace(/#[^#]*$/, '')).sort()).toEqual([
      `DOMAIN#${res.body.domainName}`,
      // The customer's notification counts, in the shard of the notification (shared/db/repositories/notification-counts.ts).
      expect.stringMatching(/^NOTIFICATIONS#demo#COUNTS#\d+$/),
      // The transfer's first notification, written with it (the outbox, shared/db/repositories/notifications.ts).
      'NOTIFICATIONS#demo#NOTIFICATION',
      `PROCESS#${res.body.processId}`,
      // The process's listing items by action and by type (shared/db/repositories/processes.ts).
      'PROCESSACTION#demo#transfer#PROCESS',
      // The status listing's blocks of the process's id, coarse and fine (shared/db/repositories/process-blocks.ts).
      'PROCESSBLOCKS#demo#RUNNING#C',
      'PROCESSBLOCKS#demo#RUNNING#F',
      // The customer's process counts, in the shard of the process (shared/db/repositories/process-counts.ts).
      `PROCESSCOUNTS#demo#${res.body.processId % 8}`,
      `PROCESSIDENTIFIER#demo#${res.body.domainName}#PROCESS`,
      'PROCESSTYPE#demo#domain#PROCESS',
    ]);
  };

  it('POST transfer: a fault at any call answers 503 and leaves nothing; the retry records the transfer once', async () => {
    const steps = await everyStep(
      'POST transfer',
      async () => {
        const name = await fresh();
        return () => transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
      },
      undefined,
      (res, changed) => {
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({ status: 'pending' });
        oneTransfer(res, changed);
      },
    );
    // The BatchGet, the price list, the registry's look and submission, the transaction.
    expect(steps).toBe(5);
  });

  it('POST transfer with an Idempotency-Key: a fault at any call answers 503 and leaves nothing, the key included; the retry with the key records the transfer once', async () => {
    const steps = await everyStep(
      'POST transfer (Idempotency-Key)',
      async () => {
        const name = await fresh();
        const headers = { 'Idempotency-Key': crypto.randomUUID() };
        return () => transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { headers });
      },
      undefined,
      (res, changed) => {
        expect(res.status).toBe(202);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        // The transfer and its key's answer, written by the one transaction.
        expect(changed.filter((k) => k.startsWith('IDEMPOTENCY#'))).toHaveLength(1);
        oneTransfer(
          res,
          changed.filter((k) => !k.startsWith('IDEMPOTENCY#')),
        );
      },
    );
    // The key's claim, the BatchGet, the price list, the registry's look and submission, the transaction.
    expect(steps).toBe(6);
  });

  it('POST transfer of a name that completes at once, with a zone from a template: 503 and nothing at any call; the retry completes it', async () => {
    await everyStep(
      'POST transfer (completes at once)',
      async () => {
        const name = await fresh();
        await sandboxDomain(name, { transfer: { stages: [], outcome: 'completed' } });
        return () => transfer(name, { ...demoBody, authcode: 'TEST-CODE', zone: { template: 'demo-template' } });
      },
      undefined,
      (res, changed) => {
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('completed');
        // The domain, its entry in the expiry job's listing and its zone (header and the template's 6 records),
        // all in the name's collection, and the process.
        const collection = changed.filter((k) => k.startsWith(`DOMAIN#${res.body.domainName}#`));
        expect(collection).toContain(`DOMAIN#${res.body.domainName}#DUE`);
        expect(collection.length).toBe(9);
        expect(changed.filter((k) => k.startsWith('PROCESS#'))).toHaveLength(1);
      },
    );
  });

  it('GET process, process list, transfer info, TLD info and provider answer 503 and write nothing', async () => {
    const started = await transfer(await fresh(), { ...demoBody, authcode: 'TEST-CODE' });
    const reads = [
      '/v2/processes/501',
      '/v2/processes?identifier=shop.demo-secure.com&total=true',
      '/v2/processes?detailStatus=SSL_REQUIRES_ATTENTION&total=true',
      `/v2/domains/${started.body.domainName}/transfer/${started.body.processId}`,
      '/v2/tlds/co.uk/info',
      '/v2/providers/sidn',
    ];
    for (const url of reads) {
      expect(await everyStep(`GET ${url}`, async () => () => call('GET', url)), url).toBeGreaterThan(0);
    }
  });

  it('DELETE a pending transfer or a certificate request, and POST resend: 503 and nothing of ours left at any call; the retry does it once', async () => {
    const cancelledOnce = (res: ApiResponse, changed: string[]) => {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('CANCELLED');
      expect(changed.filter((k) => k.startsWith('PROCESS#'))).toEqual([`PROCESS#${res.body.id}#PROCESS`]);
    };
    await everyStep(
      'DELETE transfer',
      async () => {
        const started = await transfer(await fresh(), { ...demoBody, authcode: 'TEST-CODE' });
        return () => call('DELETE', `/v2/processes/${started.body.processId}`);
      },
      undefined,
      (res, changed) => {
        cancelledOnce(res, changed);
        expect(changed).toContain(`DOMAIN#${res.body.identifier}#TRANSFER`);
      },
    );
    await everyStep('DELETE transfer (Idempotency-Key)', async () => {
      const started = await transfer(await fresh(), { ...demoBody, authcode: 'TEST-CODE' });
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      return () => call('DELETE', `/v2/processes/${started.body.processId}`, { headers });
    });
    await everyStep(
      'DELETE certificate request',
      async () => {
        const certificate = await testCertificate();
        const res = await renew(certificate.id, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }) });
        return () => call('DELETE', `/v2/processes/${res.headers['x-process-id']}`);
      },
      undefined,
      (res, changed) => {
        cancelledOnce(res, changed);
        expect(changed).toContain('DOMAIN#demo-shop.nl#ZONE');
      },
    );
    await everyStep(
      'POST resend (FOA)',
      async () => {
        const name = await fresh();
        await sandboxDomain(name, { transfer: { stages: [{ status: 'pendingfoa', seconds: 3600 }], outcome: 'completed' } });
        const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
        return () => call('POST', `/v2/processes/${started.body.processId}/resend`);
      },
      undefined,
      (res) => {
        expect(res.status).toBe(200);
        expect(res.body.statusDetail).toBe('pendingfoa');
      },
    );
    await everyStep(
      'POST resend (DCV e-mail)',
      async () => {
        const certificate = await testCertificate();
        const dcv = [{ commonName: 'demo-shop.nl', type: 'EMAIL', email: 'postmaster@demo-shop.nl' }];
        const res = await renew(certificate.id, { period: 12, csr, dcv });
        return () => call('POST', `/v2/processes/${res.headers['x-process-id']}/resend`);
      },
      undefined,
      (res) => expect(res.status).toBe(200),
    );
  });

  it('POST renew (with and without Idempotency-Key, and issued at once by auth key) answers 503 and leaves nothing', async () => {
    // Every run starts with a cold catalogue (products, authorities), so each makes the same calls.
    await everyStep('POST renew', async () => {
      forgetCatalogue();
      const certificate = await testCertificate();
      return () => renew(certificate.id, { period: 12, csr });
    });
    await everyStep('POST renew (Idempotency-Key)', async () => {
      forgetCatalogue();
      const certificate = await testCertificate();
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      return () => renew(certificate.id, { period: 12, csr }, { headers });
    });
    await everyStep('POST renew (auth key, issued at once)', async () => {
      forgetCatalogue();
      const certificate = await testCertificate();
      return () => renew(certificate.id, { period: 12, csr, authKey: true });
    });
  });

  it('the authorizer answers 503 when it cannot read the key store, before any function runs', async () => {
    for (const fault of faults) {
      const gateway = createGateway();
      const { result } = await withFault(0, fault, () =>
        gateway.handle({ method: 'GET', url: '/v2/processes/501/info', headers: { Authorization: 'ApiKey demo-key' } }),
      );
      const res = {
        status: result.status,
        headers: Object.fromEntries(Object.entries(result.headers).map(([k, v]) => [k.toLowerCase(), v])),
        body: JSON.parse(result.body),
        raw: result.body,
      };
      expectUnavailable(res, fault.name);
    }
  });
});

describe('faults of the sandbox registry and certificate authority', () => {
  it('the demo name transfer-outage.com answers 503 with Retry-After: 30, for clients testing their back-off', async () => {
    const res = await transfer('transfer-outage.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expectUnavailable(res, 'transfer-outage.com');
    expect(res.headers['retry-after']).toBe('30');
  });

  it("a registry outage at the transfer's first look answers 503 and writes nothing", async () => {
    const name = await fresh();
    await sandboxDomain(name, { unavailable: ['prepareTransfer'] });
    const before = await snapshotTable();
    for (const quote of [true, false]) {
      const res = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { quote });
      expectUnavailable(res, `quote ${quote}`);
      expect(res.headers['retry-after']).toBe('30');
      expect(res.body.message).toBe('The registry verisign is unavailable; retry later.');
    }
    await expectUnchanged(before, 'registry down');
  });

  it('a registry outage when the transfer is submitted answers 503 and writes nothing, and a retry succeeds once it is back', async () => {
    const name = await fresh();
    await sandboxDomain(name, { unavailable: ['requestTransfer'] });
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const before = await snapshotTable();
    const res = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { headers });
    expectUnavailable(res, 'submission');
    await expectUnchanged(before, 'submission failed');
    await sandboxDomain(name);
    const retry = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' }, { headers });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a registry outage while the poller asks leaves the transfer pending and untouched; the next run moves it', async () => {
    const name = await fresh();
    const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
    expect(started.status).toBe(202);
    await sandboxDomain(name, { unavailable: ['transferState'] });
    const before = await snapshotTable();
    const down = await poll(plus(started.body.actionDate, 1));
    expect(down.errors).toBe(1);
    // Other transfers due at that time moved on; this one's items are untouched.
    const mine = (k: string) => k.startsWith(`DOMAIN#${name}#`) || k.startsWith(`PROCESS#${started.body.processId}#`);
    expect(changedKeys(before, await snapshotTable()).filter(mine)).toEqual([]);
    await sandboxDomain(name);
    const up = await poll(plus(started.body.actionDate, 1));
    expect(up.errors).toBe(0);
    expect((await call('GET', `/v2/processes/${started.body.processId}/info`)).body.status).toBe('completed');
  });

  it('a certificate authority outage answers 503 to renewals and quotes, writes nothing, and the DCV check skips its requests untouched', async () => {
    const sectigo = await getCertificateAuthority('sectigo');
    if (!sectigo) throw new Error('no sectigo');
    const certificate = await testCertificate();
    const open = await renew(certificate.id, { period: 12, csr });
    expect(open.status).toBe(202);
    await putCertificateAuthority({ ...sectigo, sandbox: { ...sectigo.sandbox, unavailable: true } });
    forgetCatalogue(); // the authority is configuration, cached for minutes; the outage must be seen now
    try {
      const other = await testCertificate();
      const before = await snapshotTable();
      for (const [body, quote] of [
        [{ period: 12, csr }, true],
        [{ period: 12, csr }, false],
        [{ period: 12, csr, authKey: true }, false],
      ] as const) {
        const res = await renew(other.id, body, { quote });
        expectUnavailable(res, `renew quote=${quote}`);
        expect(res.body.message).toBe('The certificate authority Sectigo is unavailable; retry later.');
      }
      const report = await dcvCheckHandler({ time: new Date().toISOString() } as ScheduledEvent, {} as never);
      expect(report.failed).toBeGreaterThan(0);
      expect(report.issued).toEqual([]);
      await expectUnchanged(before, 'authority down');
      // Process info reads stored state and still answers.
      expect((await call('GET', `/v2/processes/${open.body ? open.headers['x-process-id'] : ''}/info`)).status).toBe(200);
    } finally {
      await putCertificateAuthority(sectigo);
      forgetCatalogue();
    }
  });
});

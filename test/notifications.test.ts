import { describe, expect, it } from 'vitest';
import { buildDocument } from '../functions/openapi/document.ts';
import { notificationItem } from '../shared/db/repositories/notifications.ts';
import { tableName } from '../shared/db/table.ts';
import { transact } from '../shared/db/transactions.ts';
import { notificationFields } from '../shared/notifications/list-request.ts';
import { NotificationView } from '../shared/notifications/notification-view.ts';
import { type ApiResponse, call, otherKey } from './support/api.ts';
import { renew, testCertificate } from './support/certificates.ts';
import { makeCsr } from './support/csr.ts';
import { beforeFirstCall, readsEntries, recordTableCalls } from './support/sdk-calls.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * The notification queue (GET .../notifications, .../{id}, .../poll, POST .../{id}/ack) in the
 * real API's shapes, written in the transaction of each state change it reports.
 */

const base = '/v2/customers/demo/notifications';
let serial = 0;

/** Every notification of demo about one process, oldest first. */
async function aboutProcess(processId: number): Promise<Record<string, unknown>[]> {
  const res = await call('GET', `${base}?process=${processId}&order=fireDate&limit=100`);
  expect(res.status).toBe(200);
  return res.body.entities;
}

/** Acknowledges everything waiting, so a test starts with an empty poll queue. */
async function drain(): Promise<void> {
  for (;;) {
    const polled = await call('GET', `${base}/poll`);
    if (!polled.body.notification) return;
    expect((await call('POST', `${base}/${polled.body.notification.id}/ack`)).status).toBe(204);
  }
}

/** A fresh sandbox name whose transfer goes pendingfoa -> pending -> `outcome`, transferred by demo. */
async function scriptedTransfer(
  outcome: 'completed' | 'rejected' = 'completed',
): Promise<{ name: string; id: number; started: ApiResponse }> {
  const name = `notify-${process.pid}-${++serial}.com`;
  await sandboxDomain(name, {
    transfer: {
      stages: [
        { status: 'pendingfoa', seconds: 3600 },
        { status: 'pending', seconds: 3600 },
      ],
      outcome,
      ...(outcome === 'rejected' ? { reason: 'The losing registrar said no.' } : {}),
    },
  });
  const started = await transfer(name, { ...demoBody, authcode: 'TEST-CODE' });
  expect(started.status).toBe(202);
  return { name, id: started.body.processId as number, started };
}

/** Runs the poller until the transfer has ended (each run moves it one step). */
async function runToEnd(started: ApiResponse): Promise<void> {
  for (let hours = 1; hours <= 4; hours++) await poll(plus(started.body.requestedDate, hours * 3600 + 60));
}

describe('notifications of a transfer: written with each move, in order', () => {
  it('reports every status the transfer went through, oldest first, in the TransferDomainNotification shape', async () => {
    const { name, id, started } = await scriptedTransfer();
    await runToEnd(started);
    const entities = await aboutProcess(id);
    expect(entities.map((n) => n.statusDetail)).toEqual(['pendingfoa', 'pending', 'completed']);
    expect(entities.map((n) => n.subjectStatus)).toEqual(['PENDING', 'PENDING', 'OK']);
    const ids = entities.map((n) => n.id as number);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(entities[2]).toEqual({
      id: ids[2],
      customer: 'demo',
      fireDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      message: `The transfer of ${name} completed.`,
      process: id,
      processType: 'domain',
      processIdentifier: name,
      eventType: 'TransferDomainEvent',
      notificationType: 'TransferDomainNotification',
      isAsync: true,
      subjectStatus: 'OK',
      statusDetail: 'completed',
      domainName: name,
      transferType: 'IN',
      requestedDate: started.body.requestedDate,
      expiryDate: expect.any(String),
    });
  });

  it('reports a rejection with its reason, and a cancellation', async () => {
    const rejected = await scriptedTransfer('rejected');
    await runToEnd(rejected.started);
    const last = (await aboutProcess(rejected.id)).at(-1);
    expect(last).toMatchObject({ statusDetail: 'rejected', subjectStatus: 'FAILED', reason: 'The losing registrar said no.' });

    const cancelled = await scriptedTransfer();
    expect((await call('DELETE', `/v2/processes/${cancelled.id}`)).status).toBe(200);
    expect((await aboutProcess(cancelled.id)).map((n) => [n.statusDetail, n.subjectStatus])).toEqual([
      ['pendingfoa', 'PENDING'],
      ['cancelled', 'FAILED'],
    ]);
  });

  it('writes nothing when the state change fails: the notification is in the same transaction', async () => {
    const { id, started } = await scriptedTransfer();
    const before = await aboutProcess(id);
    // The poller's move of this transfer fails at its transaction: neither the move nor its notification is written.
    const restore = beforeFirstCall(
      (command) => command === 'TransactWriteItemsCommand',
      async () => {
        throw Object.assign(new Error('injected'), { name: 'InternalServerError', $fault: 'server' });
      },
    );
    try {
      await poll(plus(started.body.requestedDate, 3600 + 60));
    } finally {
      restore();
    }
    expect(await aboutProcess(id)).toEqual(before);
    const process = await call('GET', `/v2/processes/${id}`);
    expect(process.body.statusDetail).toBe('pendingfoa');
    // Ended here, so the later tests' poller runs do not move it.
    expect((await call('DELETE', `/v2/processes/${id}`)).status).toBe(200);
  });
});

// These tests first acknowledge every notification the earlier ones left waiting, one call each.
describe('the poll/ack queue, as the PHP SDK reads it (NotificationPoll: count, notification)', { timeout: 60_000 }, () => {
  it('answers the oldest unacknowledged until it is acknowledged, then the next; ack is idempotent', async () => {
    await drain();
    expect((await call('GET', `${base}/poll`)).body).toEqual({ count: 0 });
    const { id, started } = await scriptedTransfer();
    await poll(plus(started.body.requestedDate, 3600 + 60));
    // The poller may have moved other tests' transfers too: acknowledge theirs (older than this one's).
    for (;;) {
      const head = (await call('GET', `${base}/poll`)).body.notification;
      if (head === undefined || head.process === id) break;
      await call('POST', `${base}/${head.id}/ack`);
    }
    const first = await call('GET', `${base}/poll`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(2);
    expect(first.body.notification).toMatchObject({ process: id, statusDetail: 'pendingfoa' });
    // The same one again: polling changes nothing, marks nothing read.
    expect((await call('GET', `${base}/poll`)).body).toEqual(first.body);
    expect(first.body.notification.readDate).toBeUndefined();

    const ack = await call('POST', `${base}/${first.body.notification.id}/ack/`, { body: {} });
    expect(ack.status).toBe(204);
    expect(ack.raw).toBe('');
    const second = await call('GET', `${base}/poll`);
    expect(second.body.count).toBe(1);
    expect(second.body.notification).toMatchObject({ process: id, statusDetail: 'pending' });

    expect((await call('POST', `${base}/${first.body.notification.id}/ack`)).status).toBe(204);
    const acked = await call('GET', `${base}/${first.body.notification.id}`);
    expect(acked.body.acknowledgeDate).toEqual(expect.any(String));
    expect(acked.body.readDate).toEqual(acked.body.acknowledgeDate);
    expect((await call('GET', `${base}/poll`)).body.count).toBe(1);
  });

  it('GET by id marks it read once (readDate kept on later reads) and leaves it in the queue', async () => {
    await drain();
    const { id } = await scriptedTransfer();
    const [n] = await aboutProcess(id);
    expect(n?.readDate).toBeUndefined();
    const read = await call('GET', `${base}/${n?.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...n, readDate: expect.any(String) });
    const again = await call('GET', `${base}/${n?.id}`);
    expect(again.body.readDate).toBe(read.body.readDate);
    expect((await call('GET', `${base}/poll`)).body).toEqual({ count: 1, notification: read.body });
  });
});

describe('the listing: total by default, limit=0, fields, q, filters', () => {
  it('counts by default, answers the total only with limit=0, leaves it out with total=false', async () => {
    const { id } = await scriptedTransfer();
    const all = await call('GET', base);
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ limit: 10, offset: 0, total: expect.any(Number) });
    const countOnly = await call('GET', `${base}?limit=0&process=${id}`);
    expect(countOnly.body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: 1 } });
    expect((await call('GET', `${base}?total=false&limit=1`)).body.pagination).toEqual({ limit: 1, offset: 0 });
  });

  it('limits the fields, finds by message text, filters the unacknowledged and by event type', async () => {
    const { name, id } = await scriptedTransfer();
    const some = await call('GET', `${base}?process=${id}&fields=id,eventType,statusDetail`);
    expect(some.body.entities).toEqual([{ id: expect.any(Number), eventType: 'TransferDomainEvent', statusDetail: 'pendingfoa' }]);
    const byText = await call('GET', `${base}?q=${name.toUpperCase()}`);
    expect(byText.body.entities.map((n: { process: number }) => n.process)).toEqual([id]);
    const unacked = await call('GET', `${base}?acknowledgeDate:null=&process=${id}`);
    expect(unacked.body.pagination.total).toBe(1);
    await call('POST', `${base}/${unacked.body.entities[0].id}/ack`);
    expect((await call('GET', `${base}?acknowledgeDate:null=&process=${id}`)).body.pagination.total).toBe(0);
    expect((await call('GET', `${base}?acknowledgeDate:not_null=&process=${id}`)).body.pagination.total).toBe(1);
    expect((await call('GET', `${base}?eventType=RequestCertificateEvent&process=${id}`)).body.pagination.total).toBe(0);
  });

  it('pages with offset alike whether the offset is skipped by counting (no filter) or over the filtered matches, in either order', async () => {
    await scriptedTransfer();
    await scriptedTransfer();
    for (const order of ['fireDate', '-fireDate']) {
      const everything = await call('GET', `${base}?order=${order}&limit=100&fields=id`);
      const ids = everything.body.entities.map((n: { id: number }) => n.id);
      expect(ids.length).toBeGreaterThanOrEqual(4);
      const page = await call('GET', `${base}?order=${order}&offset=1&limit=2&fields=id`);
      expect(page.body.entities.map((n: { id: number }) => n.id)).toEqual(ids.slice(1, 3));
      expect(page.body.pagination).toEqual({ limit: 2, offset: 1, total: everything.body.pagination.total });
      const filtered = await call('GET', `${base}?order=${order}&offset=1&limit=2&fields=id&eventType=TransferDomainEvent`);
      const transfers = (await call('GET', `${base}?order=${order}&limit=100&fields=id&eventType=TransferDomainEvent`)).body.entities;
      expect(filtered.body.entities).toEqual(transfers.slice(1, 3));
      const beyond = await call('GET', `${base}?order=${order}&offset=${ids.length}&limit=2`);
      expect(beyond.body.entities).toEqual([]);
      // The offset is skipped over the keys-only twins of the indexes (gsi2keys, and gsi1keys for
      // the unacknowledged), the total read from the kept counts: whole notifications only for the page.
      for (const [query, keysIndex, pageIndex] of [
        ['', 'gsi2keys', 'gsi2'],
        ['&acknowledgeDate:null=', 'gsi1keys', 'gsi1'],
      ] as const) {
        const skipped = await recordTableCalls(() => call('GET', `${base}?order=${order}&offset=2&limit=1&fields=id${query}`));
        expect(skipped.result.status).toBe(200);
        const reads = skipped.details.filter((d) => d.command === 'QueryCommand' && !d.partitions.some((p) => p.startsWith('APIKEY#')));
        expect(reads.map((d) => [d.input.IndexName, d.input.Select ?? 'ITEMS'])).toEqual([
          [keysIndex, 'COUNT'],
          [pageIndex, 'ITEMS'],
        ]);
        expect(reads.filter(readsEntries)).toHaveLength(1);
        expect(reads[1]?.itemsRead).toBeLessThanOrEqual(1);
        expect(skipped.details.filter((d) => d.command.startsWith('BatchGet'))).toHaveLength(1);
      }
    }
    // A deep offset is counted, within the listing's time: past it, a 400 saying how to narrow it (never a 503).
    process.env.LISTING_READ_MS = '0';
    try {
      const late = await call('GET', `${base}?offset=2&limit=1&total=false`);
      expect(late.status).toBe(400);
      expect(late.body.message).toMatch(/has time for.*smaller offset/);
    } finally {
      delete process.env.LISTING_READ_MS;
    }
    const bad = await call('GET', `${base}?id=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.violations).toEqual([{ field: 'id', message: 'must be a positive integer', value: 'abc' }]);
  });

  it('refuses unknown fields, matchers, values and export with 400 ConstraintViolationException naming the parameter', async () => {
    for (const query of [
      'colour=red',
      'eventType:gt=x',
      'eventType=NoSuchEvent',
      'fireDate:gte=yesterday',
      'limit=101',
      'fields=secret',
      'export=csv',
    ]) {
      const res = await call('GET', `${base}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.type, query).toBe('ConstraintViolationException');
    }
  });

  it("answers every match in one page on export=true (the PHP SDK's export), and refuses a page with it", async () => {
    const { id } = await scriptedTransfer();
    const counted = await call('GET', `${base}?limit=0`);
    const exported = await call('GET', `${base}?export=true`);
    expect(exported.status).toBe(200);
    expect(exported.body.entities.length).toBeGreaterThan(0);
    expect(exported.body.pagination).toEqual({ limit: counted.body.pagination.total, offset: 0, total: counted.body.pagination.total });
    expect(exported.body.entities).toHaveLength(counted.body.pagination.total);
    // Filters and fields apply as on a page.
    const mine = await call('GET', `${base}?export=true&process=${id}&fields=id,process&order=fireDate`);
    expect(mine.body.entities).toEqual((await aboutProcess(id)).map((n) => ({ id: n.id, process: id })));
    expect((await call('GET', `${base}?export=false&limit=1`)).body.entities).toHaveLength(1);
    const paged = await call('GET', `${base}?export=true&limit=5&offset=1`);
    expect(paged.status).toBe(400);
    expect(paged.body.violations.map((v: { field: string }) => v.field).sort()).toEqual(['limit', 'offset']);
  });

  it('names every field of the answered shape in `fields`', () => {
    expect([...notificationFields].sort()).toEqual(Object.keys(NotificationView.entries).sort());
  });
});

describe('only the customer reads its notifications', () => {
  it("answers 403 for another customer's handle on all four endpoints, and 404 for an unknown id", async () => {
    const { id } = await scriptedTransfer();
    const [n] = await aboutProcess(id);
    for (const [method, path] of [
      ['GET', base],
      ['GET', `${base}/poll`],
      ['GET', `${base}/${n?.id}`],
      ['POST', `${base}/${n?.id}/ack`],
    ] as const) {
      const res = await call(method, path, { key: otherKey });
      expect(res.status, path).toBe(403);
      expect(res.body.type).toBe('AuthorizationError');
    }
    // The other customer's own queue holds none of demo's.
    const own = await call('GET', '/v2/customers/other/notifications', { key: otherKey });
    expect(own.body.entities.filter((e: { customer: string }) => e.customer !== 'other')).toEqual([]);
    expect((await call('GET', `${base}/999999999`)).status).toBe(404);
    expect((await call('POST', `${base}/999999999/ack`)).status).toBe(404);
    // Untouched by the refused calls.
    expect((await call('GET', `${base}?process=${id}`)).body.entities[0].readDate).toBeUndefined();
  });
});

describe('notifications of a certificate request', () => {
  it('reports the request waiting for DCV with the records it added, and its cancellation with their removal', async () => {
    const certificate = await testCertificate();
    const res = await renew(certificate.id, { period: 12, csr: makeCsr({ cn: 'www.demo-shop.nl' }) });
    expect(res.status).toBe(202);
    const id = Number(res.headers['x-process-id']);
    const opened = await aboutProcess(id);
    expect(opened.map((n) => [n.eventType, n.notificationType, n.subjectStatus])).toEqual([
      ['RequestCertificateEvent', 'SSLCertificateNotification', 'PENDING'],
      ['DcvRecordsAddedEvent', 'DomainZoneNotification', 'PENDING'],
    ]);
    expect(opened[0]).toMatchObject({ statusDetail: 'SSL_REQUIRES_ATTENTION', processIdentifier: 'www.demo-shop.nl' });
    expect(opened[1]?.payload).toMatchObject({ zones: ['demo-shop.nl'] });

    expect((await call('DELETE', `/v2/processes/${id}`)).status).toBe(200);
    const ended = await aboutProcess(id);
    expect(ended.slice(2).map((n) => [n.eventType, n.subjectStatus])).toEqual([
      ['RequestCertificateEvent', 'FAILED'],
      ['DcvRecordsRemovedEvent', 'OK'],
    ]);
  });
});

describe("subjectStatus: the TS SDK's SubjectStatuses only", () => {
  /** The TS SDK's `SubjectStatuses` (its notification model's type of `subjectStatus`). */
  const sdkSubjectStatuses = ['NEW', 'OK', 'COMPLETED', 'PENDING', 'WARNING', 'FAILED', 'PREMIUM-CHANGE'];

  it('documents exactly those values in the OpenAPI document', async () => {
    const doc = await buildDocument();
    const schema = doc.components.schemas.Notification as { properties: Record<string, { enum?: string[] }> };
    expect([...(schema.properties.subjectStatus?.enum ?? [])].sort()).toEqual([...sdkSubjectStatuses].sort());
  });

  it('answers a notification stored with the CANCELLED of old as FAILED, read, listed and polled', async () => {
    const id = 990_000_001 + (process.pid % 1000);
    const item = notificationItem({
      id,
      customer: 'demo',
      fireDate: '2020-01-01T00:00:00Z',
      message: 'The transfer of legacy-cancel.com was cancelled.',
      eventType: 'TransferDomainEvent',
      notificationType: 'TransferDomainNotification',
      isAsync: true,
      subjectStatus: 'FAILED',
      statusDetail: 'cancelled',
    });
    await transact([{ Put: { TableName: tableName(), Item: { ...item, subjectStatus: 'CANCELLED' } } }]);
    const listed = await call('GET', `${base}?q=legacy-cancel.com`);
    expect(listed.body.entities.map((n: { subjectStatus: string }) => n.subjectStatus)).toEqual(['FAILED']);
    const read = await call('GET', `${base}/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.subjectStatus).toBe('FAILED');
  });
});

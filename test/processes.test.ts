import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { loadScaleProcesses, scaleProcess } from '../bench/process-scale.ts';
import { handler as listHandler } from '../functions/processes/handler.ts';
import { migrateTable } from '../infra/migrate.ts';
import { completeValidationManager } from '../shared/certificates/validation-manager.ts';
import { db } from '../shared/db/client.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import {
  countedOf,
  countInto,
  emptyShardCounts,
  processCountShards,
  writeProcessCounts,
} from '../shared/db/repositories/process-counts.ts';
import { markProcessPositions, processItem, putProcess, rebuildProcessBlocks } from '../shared/db/repositories/processes.ts';
import { tableName } from '../shared/db/table.ts';
import type { ProcessRecord } from '../shared/model/process.ts';
import { process501 } from '../shared/processes/process-view.ts';
import { processFields } from '../shared/processes/view.ts';
import { apiEvent, call, invoke, otherKey } from './support/api.ts';
import { readsEntries, recordTableCalls } from './support/sdk-calls.ts';
import { demoBody, sandboxDomain, transfer } from './support/transfer.ts';

/** A demo process written straight to the table (a customer of its own keeps listings small and exact). */
function processOf(customer: string, id: number, overrides: Partial<ProcessRecord> = {}): ProcessRecord {
  return {
    id,
    customer,
    user: 'lister',
    type: 'domain',
    action: 'renew',
    identifier: `name-${id}.com`,
    status: 'COMPLETED',
    createdDate: `2026-10-${String(1 + (id % 28)).padStart(2, '0')}T12:00:00Z`,
    updatedDate: '2026-10-30T12:00:00Z',
    billables: [],
    ...overrides,
  };
}

const list = (customer: string, query: Record<string, string | string[]>) => {
  const multi = Object.fromEntries(Object.entries(query).map(([k, val]) => [k, Array.isArray(val) ? val : [val]]));
  const event = apiEvent({
    method: 'GET',
    path: '/v2/processes',
    resource: '/v2/processes',
    principal: { customer, user: 'lister', permissions: [] },
  });
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(Object.entries(multi).map(([k, vals]) => [k, vals[vals.length - 1] as string]));
  return invoke(listHandler, event);
};

describe('GET /v2/processes/{processId}', () => {
  it('answers the process record of contract section 5: user as customer/login, statusDetail, resumeTypes, billables, command', async () => {
    const res = await call('GET', '/v2/processes/501');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeDefined();
    expect(res.body).toEqual(process501);
  });

  it('answers an acme process without a statusDetail and with nothing to resume', async () => {
    const res = await call('GET', '/v2/processes/502');
    expect(res.body).toEqual({
      id: 502,
      user: 'demo/alice',
      customer: 'demo',
      status: 'RUNNING',
      resumeTypes: [],
      createdDate: '2026-11-10T08:00:00Z',
      updatedDate: '2026-11-12T14:00:00Z',
      startedDate: '2026-11-10T08:00:00Z',
      type: 'acme',
      action: 'request',
      identifier: 'demo-acme-ov',
      billables: [],
      command: { authority: 'sectigo', validationLevel: 'OV' },
    });
  });

  it('answers only the fields asked for, repeated or comma-separated, as the SDKs send them', async () => {
    expect((await call('GET', '/v2/processes/501?fields=id&fields=status')).body).toEqual({ id: 501, status: 'RUNNING' });
    expect((await call('GET', '/v2/processes/501?fields=id,statusDetail,refund')).body).toEqual({
      id: 501,
      statusDetail: 'SSL_REQUIRES_ATTENTION',
    });
  });

  it('refuses an unknown field with a ConstraintViolationException naming it', async () => {
    const res = await call('GET', '/v2/processes/501?fields=id&fields=secret');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: 'ConstraintViolationException',
      message: expect.any(String),
      violations: [{ field: 'fields', message: expect.stringContaining('names no field of a process'), value: 'secret' }],
      requestId: res.headers['x-request-id'],
    });
  });

  it("answers another customer's process exactly like a missing one (404 ObjectDoesNotExist)", async () => {
    const foreign = await call('GET', '/v2/processes/601');
    const missing = await call('GET', '/v2/processes/999999');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      type: 'ObjectDoesNotExist',
      message: "Process '601' does not exist.",
      objectType: 'Process',
      identifier: '601',
      requestId: foreign.headers['x-request-id'],
    });
    expect(missing.body.message).toBe("Process '999999' does not exist.");
    expect((await call('GET', '/v2/processes/601', { key: otherKey })).status).toBe(200);
  });

  it('refuses a process id that is not a positive integer', async () => {
    const res = await call('GET', '/v2/processes/abc');
    expect(res.status).toBe(400);
    expect(res.body.violations).toEqual([{ field: 'processId', message: 'must be a positive integer', value: 'abc' }]);
  });
});

describe('GET /v2/processes', () => {
  it("lists the caller's processes newest first with the default page of 10, counted by default", async () => {
    const res = await call('GET', '/v2/processes/');
    expect(res.status).toBe(200);
    // 501 and 502, and the completed requests 101-103 that issued the demo certificates 1001-1003.
    expect(res.body.pagination).toEqual({ limit: 10, offset: 0, total: 5 });
    expect((await call('GET', '/v2/processes?total=false')).body.pagination).toEqual({ limit: 10, offset: 0 });
    expect(res.body.entities.map((p: { id: number }) => p.id)).toEqual([502, 501, 103, 102, 101]);
    expect(res.body.entities[1]).toEqual(process501);
    const counted = await call('GET', '/v2/processes?total=true');
    expect(counted.body.pagination).toEqual({ limit: 10, offset: 0, total: 5 });
    const theirs = await call('GET', '/v2/processes?total=true', { key: otherKey });
    expect(theirs.body.entities.map((p: { id: number }) => p.id)).toEqual([601, 201]);
    expect(theirs.body.pagination.total).toBe(2);
  });

  it('pages with limit and offset, orders by id or createdDate either way, and limits the fields', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => putProcess(processOf('pager', 7001 + i))));
    const page = (query: Record<string, string | string[]>) => list('pager', { fields: 'id', ...query });
    const ids = async (query: Record<string, string | string[]>) => (await page(query)).body.entities.map((p: { id: number }) => p.id);
    expect(await ids({})).toEqual([7012, 7011, 7010, 7009, 7008, 7007, 7006, 7005, 7004, 7003]);
    expect(await ids({ offset: '10' })).toEqual([7002, 7001]);
    expect(await ids({ limit: '3', offset: '2', order: 'id' })).toEqual([7003, 7004, 7005]);
    expect(await ids({ limit: '2', order: 'createdDate' })).toEqual([7001, 7002]);
    expect(await ids({ limit: '2', order: ['-createdDate', 'id'] })).toEqual([7012, 7011]);
    expect((await page({ limit: '2', offset: '11', total: 'true' })).body).toEqual({
      entities: [{ id: 7001 }],
      pagination: { limit: 2, offset: 11, total: 12 },
    });
    expect((await list('pager', { limit: '1', fields: ['id', 'user,identifier'] })).body.entities).toEqual([
      { id: 7012, user: 'pager/lister', identifier: 'name-7012.com' },
    ]);
  });

  it('filters as the SDKs send them: field=value, field:matcher=value, repeated parameters all applying', async () => {
    const c = 'filters';
    await Promise.all([
      putProcess(
        processOf(c, 7101, {
          identifier: 'alpha.nl',
          status: 'RUNNING',
          type: 'certificate',
          action: 'renew',
          createdDate: '2026-11-01T08:00:00Z',
          details: certificateDetails(false),
        }),
      ),
      putProcess(processOf(c, 7102, { identifier: 'beta.nl', status: 'COMPLETED', createdDate: '2026-11-02T08:00:00Z' })),
      putProcess(processOf(c, 7103, { identifier: 'gamma.com', status: 'FAILED', createdDate: '2026-11-03T08:00:00Z' })),
      putProcess(processOf(c, 7104, { identifier: 'alpha.nl', status: 'COMPLETED', createdDate: '2026-11-03T20:00:00Z' })),
    ]);
    const ids = async (query: Record<string, string | string[]>) => {
      const res = await list(c, { ...query, fields: 'id' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.entities.map((p: { id: number }) => p.id);
    };
    expect(await ids({ identifier: 'alpha.nl' })).toEqual([7104, 7101]);
    expect(await ids({ status: 'COMPLETED' })).toEqual([7104, 7102]);
    expect(await ids({ identifier: 'alpha.nl', status: 'RUNNING' })).toEqual([7101]);
    expect(await ids({ 'status:ne': 'COMPLETED' })).toEqual([7103, 7101]);
    expect(await ids({ 'status:in': 'FAILED,RUNNING' })).toEqual([7103, 7101]);
    expect(await ids({ 'identifier:like': '*.NL' })).toEqual([7104, 7102, 7101]);
    expect(await ids({ 'identifier:like': 'a*a.*' })).toEqual([7104, 7101]);
    expect(await ids({ type: 'certificate' })).toEqual([7101]);
    expect(await ids({ 'action:in': 'renew,transfer' })).toEqual([7104, 7103, 7102, 7101]);
    expect(await ids({ createdDate: '2026-11-03' })).toEqual([7104, 7103]);
    expect(await ids({ 'createdDate:gte': '2026-11-02', 'createdDate:lt': '2026-11-03T20:00:00Z' })).toEqual([7103, 7102]);
    expect(await ids({ 'createdDate:gt': '2026-11-02' })).toEqual([7104, 7103]);
    expect(await ids({ 'createdDate:lte': '2026-11-01T08:00:00Z' })).toEqual([7101]);
    expect(await ids({ 'detailStatus:null': '' })).toEqual([7104, 7103, 7102, 7101]);
    expect(await ids({ 'identifier:not_null': 'true' })).toHaveLength(4);
    expect(await ids({ q: 'AMM' })).toEqual([7103]);
    // Repeated: every filter applies, so two different statuses match nothing.
    expect(await ids({ status: ['COMPLETED', 'FAILED'] })).toEqual([]);
    expect(await ids({ 'identifier:like': ['*.nl', 'b*'] })).toEqual([7102]);
    expect((await list(c, { status: 'COMPLETED', total: 'true', limit: '1' })).body.pagination).toEqual({ limit: 1, offset: 0, total: 2 });
    expect((await list(c, { 'identifier:like': '*.nl', total: 'true', limit: '1' })).body.pagination).toEqual({
      limit: 1,
      offset: 0,
      total: 3,
    });
  });

  it('answers 400 ConstraintViolationException for an unknown field, an unknown or unfit matcher and bad values, naming each', async () => {
    const res = await list('filters', {
      secret: 'x',
      'status:gt': 'RUNNING',
      'identifier:between': 'a',
      status: 'SLEEPING',
      'createdDate:gte': 'yesterday',
      limit: '1000',
      offset: '-1',
      order: 'status',
      total: 'maybe',
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('ConstraintViolationException');
    expect(res.body.violations.map((x: { field: string }) => x.field).sort()).toEqual(
      ['createdDate:gte', 'identifier:between', 'limit', 'offset', 'order', 'secret', 'status', 'status:gt', 'total'].sort(),
    );
    expect(res.body.violations).toContainEqual({
      field: 'secret',
      message: 'is not a field processes can be filtered on (status, type, action, identifier, createdDate, detailStatus)',
    });
    expect(res.body.violations).toContainEqual({
      field: 'status:gt',
      message: 'status cannot be matched with gt (it takes eq, ne, in, not_in)',
    });
    const twice = await list('filters', { limit: ['1', '2'] });
    expect(twice.body.violations).toEqual([{ field: 'limit', message: 'must be given once' }]);
  });

  it('detailStatus=SSL_REQUIRES_ATTENTION lists exactly the certificate requests whose info says requiresAttention', async () => {
    const attention = await call('GET', '/v2/processes?detailStatus=SSL_REQUIRES_ATTENTION&total=true&fields=id');
    expect(attention.body).toEqual({ entities: [{ id: 501 }], pagination: { limit: 10, offset: 0, total: 1 } });
    for (const id of [101, 102, 103, 501, 502]) {
      const info = await call('GET', `/v2/processes/${id}/info`);
      expect({ id, listed: id === 501 }).toEqual({ id, listed: info.body.requiresAttention === true && id === 501 });
    }
    // The acme process needs attention too, but it is no certificate request: not listed.
    expect((await call('GET', '/v2/processes/502/info')).body.requiresAttention).toBe(true);
    // Once the validation manager resolves the organization check, 501 needs attention no more, and drops out.
    const link = (await call('GET', '/v2/processes/501/info')).body.oneTimeLink;
    await completeValidationManager(link, new Date());
    expect((await call('GET', '/v2/processes/501/info')).body.requiresAttention).toBe(false);
    const after = await call('GET', '/v2/processes?detailStatus=SSL_REQUIRES_ATTENTION&total=true&fields=id');
    expect(after.body).toEqual({ entities: [], pagination: { limit: 10, offset: 0, total: 0 } });
    expect((await call('GET', '/v2/processes?detailStatus:ne=SSL_REQUIRES_ATTENTION&fields=id')).body.entities).toEqual([
      { id: 502 },
      { id: 501 },
      { id: 103 },
      { id: 102 },
      { id: 101 },
    ]);
  });

  it('answers an exact identifier from its own listing and an exact status from the status index, reading no other process', async () => {
    const c = 'indexed';
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        putProcess(
          processOf(c, 7201 + i, { identifier: i % 20 === 0 ? 'wanted.nl' : `other-${i}.nl`, status: i === 39 ? 'RUNNING' : 'COMPLETED' }),
        ),
      ),
    );
    const byIdentifier = await recordTableCalls(() => list(c, { identifier: 'wanted.nl', fields: 'id', total: 'true' }));
    expect(byIdentifier.result.body).toEqual({ entities: [{ id: 7221 }, { id: 7201 }], pagination: { limit: 10, offset: 0, total: 2 } });
    expect(byIdentifier.details.map((d) => [d.command, d.partitions])).toEqual([
      ['QueryCommand', ['PROCESSIDENTIFIER#indexed#wanted.nl']],
      ['QueryCommand', ['PROCESSIDENTIFIER#indexed#wanted.nl']],
      ['BatchGetItemCommand', ['PROCESS#7221', 'PROCESS#7201']],
    ]);
    // An exact type or action alone: its own listing, then the page's processes by id; the count kept.
    const byAction = await recordTableCalls(() => list(c, { action: 'renew', fields: 'id', offset: '37' }));
    expect(byAction.result.body).toEqual({
      entities: [{ id: 7203 }, { id: 7202 }, { id: 7201 }],
      pagination: { limit: 10, offset: 37, total: 40 },
    });
    expect(byAction.details.map((d) => [d.command, d.input.Select ?? '', d.itemsRead])).toEqual([
      ['BatchGetItemCommand', '', 8],
      ['QueryCommand', 'COUNT', 37],
      ['QueryCommand', '', 3],
      ['BatchGetItemCommand', '', 3],
    ]);
    expect(byAction.details[1]?.partitions).toEqual(['PROCESSACTION#indexed#renew']);
    const byType = await list(c, { type: 'certificate', fields: 'id' });
    expect(byType.body).toEqual({ entities: [], pagination: { limit: 10, offset: 0, total: 0 } });
    // Processes written before the listings by type and action: the migration lists them.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.processType(c, 'domain', 7201) }));
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.processAction(c, 'renew', 7201) }));
    expect((await list(c, { type: 'domain', fields: 'id', offset: '39' })).body.entities).toEqual([]);
    expect(await migrateTable({ dryRun: true })).toMatchObject({ processesUnlistedByType: 1, processesListedByType: 0 });
    expect(await migrateTable()).toMatchObject({ processesUnlistedByType: 1, processesListedByType: 1 });
    expect(await migrateTable()).toMatchObject({ processesUnlistedByType: 0 });
    expect((await list(c, { type: 'domain', fields: 'id', offset: '39' })).body.entities).toEqual([{ id: 7201 }]);
    const byStatus = await recordTableCalls(() => list(c, { status: 'RUNNING', fields: 'id' }));
    expect(byStatus.result.body).toEqual({ entities: [{ id: 7240 }], pagination: { limit: 10, offset: 0, total: 1 } });
    // The count: the customer's 8 count shards in one BatchGet; the page: the status partition.
    expect(byStatus.details.map((d) => [d.command, d.partitions])).toEqual([
      ['BatchGetItemCommand', Array.from({ length: 8 }, (_, i) => `PROCESSCOUNTS#indexed#${i}`)],
      ['QueryCommand', ['PROCESSES#indexed#STATUS#RUNNING']],
    ]);
  });

  it('refuses a listing that would read more than PROCESS_LIST_MAX_READ items (page or count), saying how to narrow it', async () => {
    process.env.PROCESS_LIST_MAX_READ = '5';
    try {
      // 12 processes: a filter that skips them all reads more than 5 before it could fill a page.
      const skipping = await list('pager', { 'identifier:like': 'nothing*' });
      expect(skipping.status).toBe(400);
      expect(skipping.body).toEqual({
        type: 'ValidationError',
        message:
          'This listing would read more than 5 processes. Narrow it with an exact status or identifier filter (answered from an index), a detailStatus, or a smaller offset; or leave the count out with total=false.',
        requestId: skipping.headers['x-request-id'],
      });
      // Counting a filter no count answers reads every match: past the bound, refused; without the count, a page.
      expect((await list('pager', { 'identifier:like': 'name-*', limit: '1' })).status).toBe(400);
      expect((await list('pager', { 'identifier:like': 'name-*', limit: '1', total: 'false', fields: 'id' })).body).toEqual({
        entities: [{ id: 7012 }],
        pagination: { limit: 1, offset: 0 },
      });
      // Within the bound: a first page of 5, counted from the kept counts.
      expect((await list('pager', { limit: '5', fields: 'id' })).body.pagination).toEqual({ limit: 5, offset: 0, total: 12 });
    } finally {
      delete process.env.PROCESS_LIST_MAX_READ;
    }
  });

  it('refuses a listing whose matches take longer than PROCESS_LIST_READ_MS to find, with a 400 saying how to narrow it', async () => {
    process.env.PROCESS_LIST_READ_MS = '0';
    try {
      // No time to read past the first page: a filter that skips it is refused, not cut off.
      const skipping = await list('pager', { 'identifier:like': 'nothing*', limit: '2', total: 'false' });
      expect(skipping.status).toBe(400);
      expect(skipping.body).toEqual({
        type: 'ValidationError',
        message:
          'This listing reads more processes than one request has time for. Narrow it with an exact status, type, action or identifier filter (answered from an index), a narrower createdDate range, a longer search term, or a smaller offset; or leave the count out with total=false.',
        requestId: skipping.headers['x-request-id'],
      });
      // A page the first read fills needs no more time.
      expect((await list('pager', { 'identifier:like': 'name-*', limit: '1', total: 'false', fields: 'id' })).status).toBe(200);
    } finally {
      delete process.env.PROCESS_LIST_READ_MS;
    }
  });
});

describe('GET /v2/processes: the generic listing of the real API', () => {
  const c = 'generic';
  const ids = (body: { entities: { id: number }[] }) => body.entities.map((p) => p.id);

  it('counts only with limit=0, searches every listed field with q, orders repeatably, limits the fields', async () => {
    await Promise.all([
      putProcess(
        processOf(c, 7301, {
          identifier: 'shop.example',
          type: 'certificate',
          action: 'request',
          status: 'RUNNING',
          details: certificateDetails(true),
        }),
      ),
      putProcess(processOf(c, 7302, { identifier: 'Certified.nl', status: 'FAILED' })),
      putProcess(processOf(c, 7303, { identifier: 'plain.com' })),
    ]);
    const counted = await list(c, { limit: '0' });
    expect(counted.body).toEqual({ entities: [], pagination: { limit: 0, offset: 0, total: 3 } });
    expect((await list(c, { limit: '0', status: 'RUNNING' })).body.pagination).toEqual({ limit: 0, offset: 0, total: 1 });
    expect((await list(c, { limit: '0', detailStatus: 'SSL_REQUIRES_ATTENTION' })).body.pagination.total).toBe(1);
    expect((await list(c, { limit: '0', 'type:ne': 'certificate' })).body.pagination.total).toBe(2);
    expect((await list(c, { limit: '0', 'detailStatus:null': '' })).body.pagination.total).toBe(2);
    // q: the identifier (any case), the type, the action, the status or the detail status.
    expect(ids((await list(c, { q: 'CERTIF', fields: 'id' })).body)).toEqual([7302, 7301]);
    expect((await list(c, { q: 'failed', fields: 'id' })).body).toEqual({
      entities: [{ id: 7302 }],
      pagination: { limit: 10, offset: 0, total: 1 },
    });
    expect(ids((await list(c, { q: 'ssl_requires', fields: 'id' })).body)).toEqual([7301]);
    expect(ids((await list(c, { order: ['createdDate', '-id'], fields: 'id' })).body)).toEqual([7301, 7302, 7303]);
    expect(ids((await list(c, { order: 'id,createdDate', fields: 'id', offset: '1' })).body)).toEqual([7302, 7303]);
    expect((await list(c, { fields: 'id,identifier', limit: '1', total: 'false' })).body).toEqual({
      entities: [{ id: 7303, identifier: 'plain.com' }],
      pagination: { limit: 1, offset: 0 },
    });
  });

  it('exports every match with its identifying fields (or the fields asked for), refusing limit and offset', async () => {
    const all = await list(c, { export: 'true' });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      entities: [
        { id: 7303, type: 'domain', action: 'renew', identifier: 'plain.com', status: 'COMPLETED' },
        { id: 7302, type: 'domain', action: 'renew', identifier: 'Certified.nl', status: 'FAILED' },
        { id: 7301, type: 'certificate', action: 'request', identifier: 'shop.example', status: 'RUNNING' },
      ],
      pagination: { limit: 3, offset: 0, total: 3 },
    });
    expect((await list(c, { export: 'true', fields: 'id,user', status: 'FAILED' })).body.entities).toEqual([
      { id: 7302, user: 'generic/lister' },
    ]);
    const refused = await list(c, { export: 'true', limit: '5', offset: '1' });
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ConstraintViolationException');
    expect(refused.body.violations).toEqual([
      { field: 'limit', message: 'cannot be combined with export=true (an export answers every match)' },
      { field: 'offset', message: 'cannot be combined with export=true (an export answers every match)' },
    ]);
    expect((await list(c, { export: 'yes' })).body.violations).toEqual([
      { field: 'export', message: 'must be true or false', value: 'yes' },
    ]);
    process.env.PROCESS_LIST_MAX_READ = '2';
    try {
      const tooMany = await list(c, { export: 'true' });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toBe(
        'This export holds more than 2 processes. Narrow it with filters (an exact status, type or action, or a createdDate range) and export each part.',
      );
    } finally {
      delete process.env.PROCESS_LIST_MAX_READ;
    }
  });

  it('skips a deep offset over the keys-only index and reads only the page of full processes', async () => {
    const deep = 'deep';
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => putProcess(processOf(deep, 7401 + i, { status: i % 2 ? 'RUNNING' : 'COMPLETED' }))),
    );
    const page = await recordTableCalls(() => list(deep, { offset: '25', limit: '3', fields: 'id', total: 'false' }));
    expect(page.result.body.entities).toEqual([{ id: 7405 }, { id: 7404 }, { id: 7403 }]);
    // Newest first: the position from the kept count, no mark (fewer than 100 processes), so the
    // 6 keys up to the page counted from the oldest end, the nearer one, then the page.
    expect(page.details.map((d) => [d.command, d.itemsRead])).toEqual([
      ['BatchGetItemCommand', 8],
      ['QueryCommand', 0],
      ['QueryCommand', 6],
      ['QueryCommand', 3],
    ]);
    const byStatus = await recordTableCalls(() => list(deep, { status: 'RUNNING', offset: '14', fields: 'id', total: 'false' }));
    expect(byStatus.result.body.entities).toEqual([{ id: 7402 }]);
    // A status from its blocks: the kept counts to check them against, its coarse block, its 2 fine
    // blocks, the 2 keys from the start of the fine block to the position, then the page.
    expect(byStatus.details.map((d) => d.itemsRead)).toEqual([8, 1, 2, 2, 1]);
    expect((await list(deep, { offset: '30', fields: 'id' })).body).toEqual({
      entities: [],
      pagination: { limit: 10, offset: 30, total: 30 },
    });
    expect((await list(deep, { offset: '29', fields: 'id', order: 'id' })).body.entities).toEqual([{ id: 7430 }]);
  });
});

describe('GET /v2/processes: deep offsets from the listing marks', () => {
  it('answers every offset either way as the export orders them, counting at most the keys from the nearest mark', async () => {
    const c = 'marked';
    await loadScaleProcesses(450, c, 9_000_001);
    const all = (await list(c, { export: 'true', fields: 'id' })).body.entities.map((e: { id: number }) => e.id);
    expect(all).toHaveLength(450);
    for (const [offset, order] of [
      ['1', '-id'],
      ['99', '-id'],
      ['100', '-id'],
      ['250', '-id'],
      ['349', '-id'],
      ['440', '-id'],
      ['449', '-id'],
      ['450', '-id'],
      ['1', 'id'],
      ['100', 'id'],
      ['101', 'id'],
      ['399', 'id'],
      ['445', 'id'],
    ] as const) {
      const page = await recordTableCalls(() => list(c, { offset, order, limit: '5', fields: 'id', total: 'false' }));
      const ids = order === 'id' ? [...all].reverse() : all;
      expect({ offset, order, ids: page.result.body.entities.map((e: { id: number }) => e.id) }).toEqual({
        offset,
        order,
        ids: ids.slice(Number(offset), Number(offset) + 5),
      });
      // Keys counted: at most the spacing of the marks (100) from the nearest one.
      const counted = page.details.filter((d) => d.input.Select === 'COUNT').reduce((n, d) => n + d.itemsRead, 0);
      expect({ offset, order, counted: counted <= 100 }).toEqual({ offset, order, counted: true });
    }
    // A process written after the last mark is found from it; the next marking goes on from there.
    await putProcess(scaleProcess(450, c, 9_000_001));
    expect((await list(c, { offset: '1', limit: '1', fields: 'id' })).body.entities).toEqual([{ id: all[0] }]);
    expect(await markProcessPositions(c)).toEqual({ marks: 0, complete: true });
  });
});

describe("GET /v2/processes: a status listing's deep offsets from its blocks", () => {
  // 300 processes written in one BatchWrite and the table's migration: seconds, minutes on a loaded machine.
  it('answers every offset of a status, with and without a type, either way, as the export orders them, after concurrent status changes', {
    timeout: 240_000,
  }, async () => {
    const c = 'blocked';
    // 300 processes with ids 41 apart: they span 3 coarse blocks and nearly 200 fine ones.
    const processes = Array.from({ length: 300 }, (_, i) =>
      processOf(c, 20_000_003 + i * 41, {
        status: i % 3 === 0 ? 'RUNNING' : 'COMPLETED',
        type: i % 4 === 0 ? 'acme' : 'domain',
      }),
    );
    await batchWriteAll(processes.map((p) => ({ put: processItem(p) })));
    const shards = emptyShardCounts();
    countInto(shards, processes.map(countedOf));
    expect(await writeProcessCounts(c, shards, Array<number>(processCountShards).fill(0))).toEqual([]);
    expect(await rebuildProcessBlocks(c)).toBe(2);
    // Status changes through the repository, concurrently: into and out of the listings, in the middle of them.
    await Promise.all(
      processes
        .filter((_, i) => i % 7 === 0)
        .map((p) => putProcess({ ...p, status: p.status === 'RUNNING' ? 'COMPLETED' : 'RUNNING', updatedDate: '2026-10-31T12:00:00Z' })),
    );
    const ids = async (query: Record<string, string>) =>
      (await list(c, { ...query, export: 'true', fields: 'id' })).body.entities.map((e: { id: number }) => e.id);
    const filters: Record<string, string>[] = [{ status: 'COMPLETED' }, { status: 'RUNNING' }, { status: 'COMPLETED', type: 'acme' }];
    for (const filter of filters) {
      const all: number[] = await ids(filter);
      for (const order of ['-id', 'id']) {
        const listed = order === 'id' ? [...all].reverse() : all;
        for (const offset of [1, 64, 100, all.length - 3]) {
          const page = await recordTableCalls(() => list(c, { ...filter, order, offset: String(offset), limit: '5', fields: 'id' }));
          const got = {
            ...filter,
            order,
            offset,
            total: page.result.body.pagination.total,
            ids: page.result.body.entities.map((e: { id: number }) => e.id),
          };
          expect(got).toEqual({ ...filter, order, offset, total: all.length, ids: listed.slice(offset, offset + 5) });
          // Never more than a fine block of keys or summaries read to reach the page.
          const entries = page.details.filter((d) => d.input.IndexName === 'gsi2keys' || d.input.IndexName === 'gsi2list');
          expect({ ...filter, order, offset, fewer: entries.reduce((n, d) => n + d.itemsRead, 0) <= 64 + 5 }).toEqual({
            ...filter,
            order,
            offset,
            fewer: true,
          });
        }
      }
    }
    // Blocks that do not add up to the kept count are not trusted: the keys are counted, the answer the same.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.processBlock(c, 'COMPLETED', 'C', 4882) }));
    const completed: number[] = await ids({ status: 'COMPLETED' });
    expect(
      (await list(c, { status: 'COMPLETED', offset: '150', limit: '3', fields: 'id' })).body.entities.map((e: { id: number }) => e.id),
    ).toEqual(completed.slice(150, 153));
    // The migration builds them again where they do not add up.
    expect((await migrateTable()).processBlocksBuilt).toBeGreaterThanOrEqual(1);
    expect(await rebuildProcessBlocks(c)).toBe(0);
    const page = await recordTableCalls(() => list(c, { status: 'COMPLETED', offset: '150', limit: '3', fields: 'id' }));
    expect(page.result.body.entities.map((e: { id: number }) => e.id)).toEqual(completed.slice(150, 153));
    expect(page.details.filter((d) => d.input.Select === 'COUNT').reduce((n, d) => n + d.itemsRead, 0)).toBeLessThanOrEqual(64);
  });
});

/** Listing shapes with filters no index answers (the customer `summaries` of the test below). */
const summaryShapes: Record<string, string>[] = [
  { type: 'certificate' },
  { type: 'domain', offset: '25', limit: '5' },
  { type: 'domain', offset: '60' },
  { action: 'renew', order: 'id' },
  { detailStatus: 'SSL_REQUIRES_ATTENTION' },
  { detailStatus: 'pendingfoa', offset: '2', limit: '3' },
  { 'detailStatus:null': '' },
  { 'detailStatus:in': 'completed,SSL_REQUIRES_ATTENTION', offset: '40' },
  { 'identifier:like': 'www.*' },
  { 'identifier:ne': 'scale-8511.com', offset: '50' },
  { q: 'FOA' },
  { q: 'scale-852', order: 'createdDate' },
  { 'createdDate:gt': '2026-10-20' },
  { 'createdDate:gte': '2026-10-03', 'createdDate:lt': '2026-10-06', limit: '4' },
  { status: 'RUNNING', type: 'domain' },
  { 'status:ne': 'COMPLETED', 'action:like': 'tr*' },
  { 'type:in': 'certificate,acme', 'createdDate:lte': '2026-10-05' },
];

describe('GET /v2/processes: filters no index answers, checked on the summaries (gsi1list, gsi2list)', () => {
  it('answers as reading every process whole does (same entities, same totals), reading whole only the page', async () => {
    const c = 'summaries';
    // Certificate requests (one of two needing attention), running transfers waiting for their
    // FOA, completed transfers, over 28 creation days.
    const indexes = [...Array.from({ length: 30 }, (_, i) => i), ...Array.from({ length: 30 }, (_, i) => 500 + i)];
    const dated = (i: number): ProcessRecord => ({
      ...scaleProcess(i, c, 8001),
      createdDate: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
    });
    await Promise.all(indexes.map((i) => putProcess(dated(i))));
    // A process written before processes stored their detail status (a request needing attention):
    // its summary is taken from the whole process.
    const older = dated(1000);
    await putProcess(older);
    const { detailStatus, ...withoutDetail } = processItem(older);
    expect(detailStatus).toBe('SSL_REQUIRES_ATTENTION');
    await batchWriteAll([{ put: withoutDetail }]);

    const ids = async (query: Record<string, string>) => (await list(c, { ...query, fields: 'id' })).body.entities;
    expect(await ids({ detailStatus: 'SSL_REQUIRES_ATTENTION' })).toEqual([{ id: 9001 }, { id: 8501 }, { id: 8001 }]);
    expect(await ids({ type: 'domain', offset: '52' })).toEqual([{ id: 8006 }, { id: 8005 }, { id: 8004 }, { id: 8003 }]);
    // The shapes twice: with the older process read whole, and once the migration stored its detail status.
    await checkShapes();
    expect(await migrateTable()).toMatchObject({ processesDetailed: 1 });
    expect(await migrateTable()).toMatchObject({ processesWithoutDetail: 0, processesDetailed: 0 });
    const attention = await recordTableCalls(() => list(c, { detailStatus: 'SSL_REQUIRES_ATTENTION', fields: 'id' }));
    expect(attention.result.body.entities).toEqual([{ id: 9001 }, { id: 8501 }, { id: 8001 }]);
    // The 8 count shards and the 3 of the page: nothing else whole.
    expect(attention.details.filter((d) => !readsEntries(d)).reduce((n, d) => n + d.itemsRead, 0)).toBe(11);
    await checkShapes();
  });
});

/**
 * Each of summaryShapes answers as reading every process whole does (the export, which reads them
 * whole and checks each one's own summary): the same entities and the same total; its filters read
 * gsi1list entries, and whole processes only its page (and the older process of the test when its
 * entry is read).
 */
async function checkShapes(): Promise<void> {
  const c = 'summaries';
  for (const shape of summaryShapes) {
    const { offset, limit, ...filters } = shape;
    const from = Number(offset ?? 0);
    const size = Number(limit ?? 10);
    const page = await recordTableCalls(() => list(c, shape));
    const whole = await list(c, { ...filters, export: 'true', fields: processFields.join(',') });
    expect(page.result.status, JSON.stringify(shape)).toBe(200);
    expect(whole.status, JSON.stringify(shape)).toBe(200);
    expect({ shape, ...page.result.body }).toEqual({
      shape,
      entities: whole.body.entities.slice(from, from + size),
      pagination: { limit: size, offset: from, total: whole.body.entities.length },
    });
    // The filters read index entries of gsi1list (gsi2list: one status's, where an exact status or
    // detailStatus names it); whole processes only for the page (one BatchGet of at most `limit`),
    // the count shards where they answer, and the older process when its entry is read.
    // An exact type or action alone reads its own listing (small items of the table, an id each).
    const listedBy = Object.keys(filters).filter((k) => k !== 'order');
    const listing = listedBy.length === 1 && (listedBy[0] === 'type' || listedBy[0] === 'action');
    const index = shape.status !== undefined || shape.detailStatus !== undefined ? 'gsi2list' : 'gsi1list';
    // A status with an exact type is counted (and a deep page placed) by the status's blocks: small count items, as the shards.
    const ofBlocks = (d: { partitions: string[] }) => d.partitions.every((p) => p.startsWith('PROCESSBLOCKS#'));
    const queries = page.details.filter((d) => d.command === 'QueryCommand' && !ofBlocks(d));
    const ofListing = (d: { partitions: string[] }) => d.partitions.every((p) => /^PROCESS(TYPE|ACTION)#summaries#/.test(p));
    if (listing) expect(queries.every(ofListing), JSON.stringify(shape)).toBe(true);
    else {
      expect(
        queries.map((d) => d.input.IndexName),
        JSON.stringify(shape),
      ).toEqual(queries.map(() => index));
      expect(queries.every(readsEntries)).toBe(true);
    }
    const wholeItems = page.details
      .filter((d) => !readsEntries(d) && !ofListing(d) && !ofBlocks(d) && !d.partitions.every((p) => p.startsWith('PROCESSCOUNTS#')))
      .reduce((n, d) => n + d.itemsRead, 0);
    expect(wholeItems, JSON.stringify(shape)).toBeLessThanOrEqual(Math.min(size, page.result.body.entities.length) + 1);
  }
}

describe('GET /v2/processes/{processId} of a transfer', () => {
  it('answers a pending transfer with its transfer status as statusDetail, CANCEL, and a command without the auth code', async () => {
    await sandboxDomain('get-one.com', { transfer: { stages: [{ status: 'pendingfoa', seconds: 3600 }], outcome: 'completed' } });
    const started = await transfer('get-one.com', { ...demoBody, authcode: 'TEST-CODE', period: 12 });
    const id = started.body.processId;
    const res = await call('GET', `/v2/processes/${id}`);
    expect(res.body).toEqual({
      id,
      user: 'demo/alice',
      customer: 'demo',
      status: 'RUNNING',
      statusDetail: 'pendingfoa',
      resumeTypes: ['CANCEL', 'RESEND'],
      createdDate: started.body.requestedDate,
      updatedDate: started.body.requestedDate,
      startedDate: started.body.requestedDate,
      type: 'domain',
      action: 'transfer',
      identifier: 'get-one.com',
      billables: [
        { product: 'domain_com', action: 'TRANSFER', quantity: 1, amount: 1049, providerName: 'verisign', refundable: true, total: 1049 },
      ],
      command: { domainName: 'get-one.com', customer: 'demo', registrant: 'demo-registrant', period: 12 },
    });
    expect(res.raw).not.toContain('TEST-CODE');
  });
});

/** The details of a certificate request (enough for statusDetail and resumeTypes). */
function certificateDetails(attention: boolean): Record<string, unknown> {
  return {
    product: 'ssl_sectigo_dv',
    authority: 'sectigo',
    validationLevel: 'DV',
    period: 12,
    commonName: 'alpha.nl',
    san: [],
    csr: 'CSR',
    csrSummary: { san: [], subject: {}, keyType: 'EC', keySize: 256, signatureAlgorithm: 'ecdsa-with-SHA256', sha256: 'ab' },
    mismatches: [],
    uniqueValue: 'u',
    language: 'EN',
    authKey: false,
    subject: {},
    validations: { dcv: [{ commonName: 'alpha.nl', type: 'DNS', status: attention ? 'ATTENTION' : 'WAITING', caaRecordStatus: 'EMPTY' }] },
    notes: [],
  };
}

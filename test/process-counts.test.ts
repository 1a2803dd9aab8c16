import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as repairCountsJob } from '../functions/repair-counts/handler.ts';
import { loadDataset } from '../infra/dataset.ts';
import { completeValidationManager } from '../shared/certificates/validation-manager.ts';
import { batchWriteAll } from '../shared/db/items.ts';
import { putCustomer } from '../shared/db/repositories/customers.ts';
import { processCountsChange } from '../shared/db/repositories/process-counts.ts';
import { processIdentifierItem, processItem, putProcess } from '../shared/db/repositories/processes.ts';
import { transact } from '../shared/db/transactions.ts';
import type { ProcessRecord } from '../shared/model/process.ts';
import { repairProcessCounts } from '../shared/processes/repair-counts.ts';
import { call } from './support/api.ts';
import { listProcessesOf } from './support/process-list.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

/**
 * The process counts behind `pagination.total`: every writer keeps them in its own transaction,
 * a load keeps them, and the repair puts them right when they drift. Each count is compared with
 * the same filter counted by reading the processes (`identifier:like=*` matches every process but
 * no count answers it, so the listing reads and counts the matches).
 */

const dimensions = [
  '',
  'status=RUNNING',
  'status=COMPLETED',
  'status=CANCELLED',
  'type=domain',
  'type=certificate',
  'action=transfer',
  'detailStatus=pendingfoa',
  'detailStatus=pending',
  'detailStatus=completed',
  'detailStatus=cancelled',
  'detailStatus=SSL_REQUIRES_ATTENTION',
  'detailStatus:null=',
];

/** The total of a listing of the demo customer (or `key`'s), counted from the kept counts and by reading. */
async function totals(filter: string, key?: string): Promise<{ filter: string; counted: number; read: number }> {
  const query = filter === '' ? '' : `&${filter}`;
  const options = key ? { key } : {};
  const counted = await call('GET', `/v2/processes?limit=0${query}`, options);
  const read = await call('GET', `/v2/processes?limit=0&identifier:like=*${query}`, options);
  expect([counted.status, read.status]).toEqual([200, 200]);
  return { filter, counted: counted.body.pagination.total, read: read.body.pagination.total };
}

async function expectExact(key?: string): Promise<void> {
  for (const filter of dimensions) {
    const t = await totals(filter, key);
    expect(t).toEqual({ filter, counted: t.read, read: t.read });
  }
}

function countedProcess(customer: string, id: number, status: ProcessRecord['status']): ProcessRecord {
  return {
    id,
    customer,
    user: 'counter',
    type: 'domain',
    action: 'renew',
    identifier: `count-${id}.com`,
    status,
    createdDate: '2026-10-01T12:00:00Z',
    updatedDate: '2026-10-01T12:00:00Z',
    billables: [],
  };
}

describe('process counts', () => {
  it('are kept by every writer: the demo data, transfers started, polled and cancelled, a certificate request validated', async () => {
    await expectExact();
    expect((await totals('detailStatus=SSL_REQUIRES_ATTENTION')).counted).toBe(1);
    // The validation manager resolves what needed attention: the request needs it no more.
    const link = (await call('GET', '/v2/processes/501/info')).body.oneTimeLink;
    await completeValidationManager(link, new Date());
    expect((await totals('detailStatus=SSL_REQUIRES_ATTENTION')).counted).toBe(0);
    await expectExact();
    await sandboxDomain('counts-poll.com', { transfer: { stages: [{ status: 'pending', seconds: 60 }], outcome: 'completed' } });
    const polled = await transfer('counts-poll.com', { ...demoBody, authcode: 'TEST-CODE' });
    expect((await totals('detailStatus=pending')).counted).toBe(1);
    await poll(plus(polled.body.actionDate, 5));
    expect((await totals('detailStatus=pending')).counted).toBe(0);
    expect((await totals('detailStatus=completed')).counted).toBe(1);
    await sandboxDomain('counts-wait.com', { transfer: { stages: [{ status: 'pendingfoa', seconds: 3600 }], outcome: 'completed' } });
    const started = await transfer('counts-wait.com', { ...demoBody, authcode: 'TEST-CODE' });
    expect(started.status).toBe(202);
    await sandboxDomain('counts-now.com', { transfer: { stages: [], outcome: 'completed' } });
    expect((await transfer('counts-now.com', { ...demoBody, authcode: 'TEST-CODE' })).status).toBe(200);
    await expectExact();
    expect((await totals('detailStatus=pendingfoa')).counted).toBe(1);
    expect((await call('DELETE', `/v2/processes/${started.body.processId}`)).status).toBe(200);
    await expectExact();
    expect((await totals('detailStatus=cancelled')).counted).toBe(1);
    expect((await totals('detailStatus=pendingfoa')).counted).toBe(0);
  });

  it('drift when processes are written around the repositories, and the repair puts them right', async () => {
    const c = 'drifting';
    await putProcess(countedProcess(c, 9001, 'RUNNING'));
    // Written straight to the table, as an old import or a bug might: the counts do not see them.
    const bypass = [countedProcess(c, 9002, 'COMPLETED'), countedProcess(c, 9003, 'COMPLETED'), countedProcess(c, 9004, 'FAILED')];
    await batchWriteAll(bypass.flatMap((p) => [{ put: processItem(p) }, { put: processIdentifierItem(p) }]));
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(1);
    const repair = await repairProcessCounts(c);
    expect(repair).toEqual({
      customer: c,
      processes: 4,
      changed: {
        all: { before: 1, after: 4 },
        'status:COMPLETED': { before: 0, after: 2 },
        'status:FAILED': { before: 0, after: 1 },
        'type:domain': { before: 1, after: 4 },
        'action:renew': { before: 1, after: 4 },
      },
      rounds: 1,
    });
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(4);
    expect((await listProcessesOf(c, { limit: '0', status: 'COMPLETED' })).pagination.total).toBe(2);
    // Exact already: nothing changes.
    expect((await repairProcessCounts(c)).changed).toEqual({});
    // The operator's command: drift again, repair from the admin CLI.
    await batchWriteAll([{ put: processItem(countedProcess(c, 9006, 'COMPLETED')) }]);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'infra/admin.ts', 'repair-counts', '--customer', c], { env: process.env });
    expect(stdout).toBe(
      `${c}: 5 processes; repaired action:renew 4 -> 5, all 4 -> 5, status:COMPLETED 2 -> 3, type:domain 4 -> 5.\n${c}: 0 notifications; the counts were exact.\n${c}: domain counts per expiry day: exact.\n`,
    );
    // A write after the repair is counted on top of the repaired counts.
    await putProcess(countedProcess(c, 9005, 'FAILED'));
    expect((await listProcessesOf(c, { limit: '0', status: 'FAILED' })).pagination.total).toBe(2);
  });

  it('are kept by a dataset load, and moved when a load overwrites a process', async () => {
    const c = 'loaded';
    const processes = [countedProcess(c, 9101, 'RUNNING'), countedProcess(c, 9102, 'COMPLETED')];
    await loadDataset({
      customers: [{ handle: c, name: 'Loaded B.V.', currency: 'EUR', privacyProtect: false, createdDate: '2026-01-01T00:00:00Z' }],
      processes,
    });
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(2);
    // Loaded again: kept, not counted twice.
    await loadDataset({ processes });
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(2);
    // Overwritten with another status: the counts move with it.
    await loadDataset({ processes: [{ ...countedProcess(c, 9101, 'FAILED'), updatedDate: '2026-10-02T12:00:00Z' }] }, { overwrite: true });
    expect((await listProcessesOf(c, { limit: '0', status: 'RUNNING' })).pagination.total).toBe(0);
    expect((await listProcessesOf(c, { limit: '0', status: 'FAILED' })).pagination.total).toBe(1);
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(2);
  });

  it('drift, and the scheduled repair job finds it by key and puts it right, a bounded piece per pass', async () => {
    const c = 'jobdrift';
    await putCustomer({
      handle: c,
      name: 'Drifting Counts B.V.',
      currency: 'EUR',
      privacyProtect: false,
      createdDate: '2026-10-01T12:00:00Z',
    });
    for (const id of [9201, 9202, 9203]) await putProcess(countedProcess(c, id, 'RUNNING'));
    // A process written without its count, and a count with no process (written through the data layer, around the writers).
    await batchWriteAll(
      [9204, 9205].flatMap((id) => [
        { put: processItem(countedProcess(c, id, 'COMPLETED')) },
        { put: processIdentifierItem(countedProcess(c, id, 'COMPLETED')) },
      ]),
    );
    const ghost = processCountsChange(undefined, { id: 9299, customer: c, status: 'FAILED', type: 'domain', action: 'renew' });
    if (ghost) await transact([ghost]);
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(4);
    expect((await listProcessesOf(c, { limit: '0', status: 'COMPLETED' })).pagination.total).toBe(0);

    // Three processes a pass: the demo customer (before it in handle order) and this one take several passes each.
    process.env.REPAIR_COUNTS_MAX_READ = '3';
    const passes = [];
    try {
      for (let i = 0; i < 40; i++) {
        const event: ScheduledEvent = {
          version: '0',
          id: `repair-${i}`,
          'detail-type': 'Scheduled Event',
          source: 'aws.events',
          account: '000000000000',
          time: new Date().toISOString(),
          region: 'eu-west-1',
          resources: ['arn:aws:events:eu-west-1:000000000000:rule/repair-counts'],
          detail: {},
        };
        const context = { awsRequestId: `repair-${i}`, functionName: 'repair-counts', getRemainingTimeInMillis: () => 10_000 } as Context;
        const pass = await repairCountsJob(event, context);
        passes.push(pass);
        if (pass.wrapped) break;
      }
    } finally {
      delete process.env.REPAIR_COUNTS_MAX_READ;
    }
    expect(passes.at(-1)?.wrapped).toBe(true);
    for (const pass of passes) expect(pass.processes).toBeLessThanOrEqual(3);
    // Resumed where the last pass stopped: this customer was counted over more than one pass.
    expect(passes.filter((p) => p.inProgress === c).length).toBeGreaterThan(0);
    // Every writer kept the demo customer's counts: only this customer drifted.
    expect(passes.flatMap((p) => p.drifted)).toEqual([
      {
        customer: c,
        changed: {
          'action:renew': { before: 4, after: 5 },
          all: { before: 4, after: 5 },
          'status:COMPLETED': { before: 0, after: 2 },
          'status:FAILED': { before: 1, after: 0 },
          'type:domain': { before: 4, after: 5 },
        },
      },
    ]);
    const filters: Record<string, string>[] = [
      {},
      { status: 'COMPLETED' },
      { status: 'RUNNING' },
      { status: 'FAILED' },
      { type: 'domain' },
      { action: 'renew' },
    ];
    for (const filter of filters) {
      const counted = (await listProcessesOf(c, { limit: '0', ...filter })).pagination.total;
      const read = (await listProcessesOf(c, { limit: '0', 'identifier:like': '*', ...filter })).pagination.total;
      expect({ filter, counted }).toEqual({ filter, counted: read });
    }
    expect((await listProcessesOf(c, { limit: '0' })).pagination.total).toBe(5);
    // The next pass starts again from the first customer; with the default bound it visits all four
    // (demo, other, the customer the dataset test loaded, this one), and nothing drifted.
    const again = await repairCountsJob({} as ScheduledEvent, { getRemainingTimeInMillis: () => 10_000 } as Context);
    expect(again).toMatchObject({ customers: 4, drifted: [], raced: 0, wrapped: true });
  });
});

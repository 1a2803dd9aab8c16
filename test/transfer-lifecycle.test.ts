import { describe, expect, it } from 'vitest';
import { db } from '../shared/db/client.ts';
import { getDomain } from '../shared/db/repositories/domains.ts';
import { getProcess } from '../shared/db/repositories/processes.ts';
import { putTransfer, readDomainCollection } from '../shared/db/repositories/transfers.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone } from '../shared/db/repositories/zones.ts';
import type { ProcessRecord } from '../shared/model/process.ts';
import { transferDetailsOf, transferResultOf } from '../shared/model/transfer.ts';
import { toWireTime } from '../shared/time.ts';
import { call, otherKey } from './support/api.ts';
import { demoBody, plus, poll, sandboxDomain, transfer } from './support/transfer.ts';

const key13 = 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==';

/** Status of a transfer process as process info would show it (spec 2.6 shape). */
async function resultOf(processId: number) {
  const process = await getProcess(processId, 'demo');
  if (!process) throw new Error(`no process ${processId}`);
  return transferResultOf(process);
}

describe('transfer lifecycle: the scheduled poller', () => {
  it('completes transfer-wait.com after five days, converting the existing unmanaged zone into a managed one', async () => {
    const res = await transfer('transfer-wait.com', {
      ...demoBody,
      authcode: 'COM-TRANSFER-2026',
      zone: { service: 'BASIC' },
      ns: ['ns1.dns.example', 'ns2.dns.example'],
    });
    expect(res.status).toBe(202);
    const id = res.body.processId as number;

    // Before the actionDate nothing is due.
    expect(await poll(plus(res.body.actionDate, -1))).toEqual({ due: 0, moved: 0, completed: 0, ended: 0, errors: 0 });
    expect(await resultOf(id)).toEqual(res.body);
    expect(await getDomain('transfer-wait.com')).toBeUndefined();

    const at = plus(res.body.actionDate, 1);
    expect(await poll(at)).toEqual({ due: 1, moved: 1, completed: 1, ended: 0, errors: 0 });
    expect(await resultOf(id)).toEqual({
      domainName: 'transfer-wait.com',
      status: 'completed',
      requestedDate: res.body.requestedDate,
      expiryDate: '2028-04-02T08:30:00Z',
      type: 'IN',
      processId: id,
    });
    const process = await getProcess(id, 'demo');
    expect(process?.status).toBe('COMPLETED');
    expect(transferDetailsOf(process!).history).toEqual([
      { status: 'pending', date: res.body.requestedDate },
      { status: 'completed', date: toWireTime(at) },
    ]);
    expect(await getDomain('transfer-wait.com')).toMatchObject({
      customer: 'demo',
      registry: 'verisign',
      ns: ['ns1.dns.example', 'ns2.dns.example'],
      keyData: [],
      expiryDate: '2028-04-02T08:30:00Z',
    });
    const zone = await call('GET', '/v2/domains/transfer-wait.com/zone');
    expect(zone.status).toBe(200);
    expect(zone.body).toMatchObject({
      id: 104,
      name: 'transfer-wait.com',
      customer: 'demo',
      managed: true,
      service: 'BASIC',
      dnssec: false,
      records: [{ name: 'transfer-wait.com', type: 'A', content: '192.0.2.44', ttl: 3600 }],
    });
    expect((await readDomainCollection('transfer-wait.com')).lock).toBeUndefined();
    // Nothing left to do.
    expect(await poll(plus(at, 60))).toEqual({ due: 0, moved: 0, completed: 0, ended: 0, errors: 0 });
  });

  it('completes transfer-tag.co.uk when the losing registrar releases it, and creates a zone from the template', async () => {
    const res = await transfer('transfer-tag.co.uk', {
      ...demoBody,
      zone: { template: 'demo-template', link: false, master: '8.8.4.4', dnssec: true },
    });
    expect(res.status).toBe(202);
    expect(res.body.actionDate).toBe(toWireTime(plus(res.body.requestedDate, 120)));
    await poll(plus(res.body.actionDate, 0));
    expect((await resultOf(res.body.processId)).status).toBe('completed');
    const zone = await getZone('transfer-tag.co.uk');
    expect(zone).toMatchObject({
      domainName: 'transfer-tag.co.uk',
      customer: 'demo',
      managed: true,
      service: 'BASIC',
      template: 'demo-template',
      link: false,
      master: '8.8.4.4',
      dnssec: true,
      hostMaster: 'hostmaster@demo-hosting.example',
    });
    // An unlinked copy has ##DOMAIN## applied now.
    expect(zone?.records.slice(0, 3)).toEqual([
      { name: 'transfer-tag.co.uk', type: 'A', content: '192.0.2.10', ttl: 3600 },
      { name: 'transfer-tag.co.uk', type: 'AAAA', content: '2001:db8:10::10', ttl: 3600 },
      { name: 'www.transfer-tag.co.uk', type: 'CNAME', content: 'transfer-tag.co.uk', ttl: 3600 },
    ]);
    const shown = await call('GET', '/v2/domains/transfer-tag.co.uk/zone');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ managed: true, template: 'demo-template', link: false, master: '8.8.4.4', dnssec: true });
    expect(transferDetailsOf((await getProcess(res.body.processId, 'demo'))!).zoneId).toBe(zone?.id);
  });

  it('applies the plan on completion: name servers and DNSSEC replaced or removed, contacts, privacy, auto-renew, a linked zone', async () => {
    await sandboxDomain('apply-all.com', { keyData: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key13 }] });
    const res = await transfer('apply-all.com', {
      ...demoBody,
      authcode: 'TEST-CODE',
      ns: [],
      keyData: [],
      contacts: [
        { role: 'TECH', handle: 'demo-tech' },
        { role: 'BILLING', handle: 'demo-billing' },
      ],
      privacyProtect: true,
      autoRenew: false,
      zone: { template: 'demo-template' },
    });
    await poll(plus(res.body.actionDate, 5));
    expect(await getDomain('apply-all.com')).toMatchObject({
      registrant: 'demo-registrant',
      contacts: [
        { role: 'TECH', handle: 'demo-tech' },
        { role: 'BILLING', handle: 'demo-billing' },
      ],
      ns: [],
      keyData: [],
      privacyProtect: true,
      autoRenew: false,
      expiryDate: '2028-06-15T12:00:00Z',
    });
    const zone = await getZone('apply-all.com');
    // A linked zone keeps the placeholders (it follows its template); the zone endpoint fills them in.
    expect(zone).toMatchObject({ managed: true, template: 'demo-template', link: true, dnssec: false });
    expect(zone?.records[2]).toEqual({ name: 'www.##DOMAIN##', type: 'CNAME', content: '##DOMAIN##', ttl: 3600 });
    const shown = await call('GET', '/v2/domains/apply-all.com/zone');
    expect(shown.body.records[2]).toMatchObject({ name: 'www.apply-all.com', type: 'CNAME' });
  });

  it('keeps the registry name servers and DNSSEC when they are omitted', async () => {
    await sandboxDomain('keep-all.com', { keyData: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key13 }] });
    const res = await transfer('keep-all.com', { ...demoBody, authcode: 'TEST-CODE' });
    await poll(plus(res.body.actionDate, 1));
    expect(await getDomain('keep-all.com')).toMatchObject({
      ns: ['ns1.old.example', 'ns2.old.example'],
      keyData: [{ protocol: 3, flags: 257, algorithm: 13, publicKey: key13 }],
    });
    expect(await getZone('keep-all.com')).toBeUndefined();
  });

  it('walks transfer-whois.net through pendingwhois, pendingvalidation and pending to completed', async () => {
    const res = await transfer('transfer-whois.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('pendingwhois');
    const start = res.body.requestedDate as string;
    expect(res.body.actionDate).toBe(toWireTime(plus(start, 3600)));

    await poll(plus(start, 3600));
    expect(await resultOf(res.body.processId)).toMatchObject({
      status: 'pendingvalidation',
      actionDate: toWireTime(plus(start, 3600 + 86400)),
    });
    await poll(plus(start, 3600 + 86400));
    expect(await resultOf(res.body.processId)).toMatchObject({
      status: 'pending',
      actionDate: toWireTime(plus(start, 3600 + 86400 + 432000)),
    });
    await poll(plus(start, 3600 + 86400 + 432000));
    const done = await resultOf(res.body.processId);
    expect(done).toEqual({
      domainName: 'transfer-whois.net',
      status: 'completed',
      requestedDate: start,
      expiryDate: '2028-06-01T00:00:00Z',
      type: 'IN',
      processId: res.body.processId,
    });
    const history = transferDetailsOf((await getProcess(res.body.processId, 'demo'))!).history.map((h) => h.status);
    expect(history).toEqual(['pendingwhois', 'pendingvalidation', 'pending', 'completed']);
  });

  it('jumps over stages the poller missed: one late run moves straight to the current status', async () => {
    const res = await transfer('transfer-foa.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    expect(res.body.status).toBe('pendingfoa');
    await poll(plus(res.body.requestedDate, 86400 + 10));
    expect(await resultOf(res.body.processId)).toMatchObject({
      status: 'approved',
      actionDate: toWireTime(plus(res.body.requestedDate, 86400 + 3600)),
    });
    await poll(plus(res.body.requestedDate, 10 * 86400));
    expect((await resultOf(res.body.processId)).status).toBe('completed');
  });

  it('ends transfer-rejected.com as rejected: FAILED process, billables refunded, no domain, the name free again', async () => {
    const res = await transfer('transfer-rejected.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' });
    expect(res.body.status).toBe('pending');
    expect(await poll(plus(res.body.actionDate, 1))).toEqual({ due: 1, moved: 1, completed: 0, ended: 1, errors: 0 });
    expect(await resultOf(res.body.processId)).toEqual({
      domainName: 'transfer-rejected.com',
      status: 'rejected',
      requestedDate: res.body.requestedDate,
      type: 'IN',
      processId: res.body.processId,
    });
    const process = await getProcess(res.body.processId, 'demo');
    expect(process?.status).toBe('FAILED');
    expect(transferDetailsOf(process!)).toMatchObject({
      status: 'rejected',
      reason: 'The losing registrar rejected the transfer: the domain is subject of a dispute.',
      refunded: true,
      endDate: res.body.actionDate,
    });
    expect(await getDomain('transfer-rejected.com')).toBeUndefined();
    expect((await transfer('transfer-rejected.com', { ...demoBody, authcode: 'COM-TRANSFER-2026' })).status).toBe(202);
  });

  it('ends transfer-failed.net as failed when the FOA never comes', async () => {
    const res = await transfer('transfer-failed.net', { ...demoBody, authcode: 'NET-TRANSFER-2026' });
    expect(res.body.status).toBe('pendingfoa');
    await poll(plus(res.body.actionDate, 1));
    expect((await resultOf(res.body.processId)).status).toBe('failed');
    expect((await getProcess(res.body.processId, 'demo'))?.status).toBe('FAILED');
  });

  it('applies a move once when two pollers run at the same time', async () => {
    await sandboxDomain('two-pollers.com');
    const res = await transfer('two-pollers.com', { ...demoBody, authcode: 'TEST-CODE' });
    const at = plus(res.body.actionDate, 1);
    const runs = await Promise.all([poll(at), poll(at), poll(at)]);
    expect(runs.reduce((n, r) => n + r.completed, 0)).toBeGreaterThanOrEqual(1);
    expect(runs.reduce((n, r) => n + r.errors, 0)).toBe(0);
    const history = transferDetailsOf((await getProcess(res.body.processId, 'demo'))!).history.map((h) => h.status);
    expect(history).toEqual(['pending', 'completed']);
    expect((await getDomain('two-pollers.com'))?.customer).toBe('demo');
  });

  it('completes a transfer stored before the registry had answered (records of the earlier write-ahead design: `submitted: false`, due at once)', async () => {
    await sandboxDomain('crashed.com', { transfer: { stages: [], outcome: 'completed' } });
    const requestedDate = toWireTime(new Date());
    const plan = {
      periodMonths: 12,
      expiry: { before: '2027-06-15T12:00:00Z', after: '2028-06-15T12:00:00Z' },
      nameServers: {
        change: 'kept' as const,
        before: ['ns1.old.example', 'ns2.old.example'],
        after: ['ns1.old.example', 'ns2.old.example'],
      },
      dnssec: { change: 'kept' as const, before: [], after: [] },
      zone: { change: 'untouched' as const, exists: false },
      contacts: { registrant: 'demo-registrant', contacts: [] },
      privacyProtect: false,
      autoRenew: true,
      designatedAgent: { requested: 'NONE' as const, applied: 'NONE' as const },
    };
    const id = 990001;
    await putTransfer(
      {
        id,
        customer: 'demo',
        user: 'alice',
        type: 'domain',
        action: 'transfer',
        identifier: 'crashed.com',
        status: 'RUNNING',
        createdDate: requestedDate,
        updatedDate: requestedDate,
        billables: [],
        details: {
          domainName: 'crashed.com',
          registry: 'verisign',
          extension: 'com',
          type: 'IN',
          status: 'pending',
          submitted: false,
          version: 1,
          requestedDate,
          actionDate: requestedDate,
          plan,
          history: [],
        } as ProcessRecord['details'],
      },
      {
        domainName: 'crashed.com',
        customer: 'demo',
        processId: id,
        status: 'pending',
        version: 1,
        requestedDate,
        actionDate: requestedDate,
      },
    );
    expect(await resultOf(id)).toEqual({
      domainName: 'crashed.com',
      status: 'pending',
      requestedDate,
      actionDate: requestedDate,
      type: 'IN',
      processId: id,
    });
    await poll(plus(requestedDate, 1));
    expect(await resultOf(id)).toMatchObject({ status: 'completed', expiryDate: '2028-06-15T12:00:00Z' });
  });

  it('shows the current transfer result through GET /v2/processes/{id}/info, to its own customer only', async () => {
    await sandboxDomain('info.com');
    const res = await transfer('info.com', { ...demoBody, authcode: 'TEST-CODE' });
    const info = await call('GET', `/v2/processes/${res.body.processId}/info`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual(res.body);
    await poll(plus(res.body.actionDate, 1));
    const done = await call('GET', `/v2/processes/${res.body.processId}/info`);
    expect(done.body).toEqual({ ...res.body, status: 'completed', actionDate: undefined, expiryDate: '2028-06-15T12:00:00Z' });
    expect((await call('GET', `/v2/processes/${res.body.processId}/info`, { key: otherKey })).status).toBe(404);
  });
});

describe('transfer under data-store faults', () => {
  function inject(name: string, when: (commandName: string, input: Record<string, any>) => boolean) {
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (when(String(context.commandName), args.input as Record<string, any>)) {
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
            name: 'ProvisionedThroughputExceededException',
            $fault: 'client',
            $metadata: {},
          });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    return () => db().middlewareStack.remove(name);
  }

  it('answers 503 when the transfer transaction is throttled, leaves nothing behind, and a retry with the same key succeeds', async () => {
    await sandboxDomain('throttled.com');
    const headers = { 'Idempotency-Key': 'key-throttled' };
    const remove = inject('throttle-transfer', (command) => command.startsWith('TransactWrite'));
    let res: Awaited<ReturnType<typeof transfer>>;
    try {
      res = await transfer('throttled.com', { ...demoBody, authcode: 'TEST-CODE' }, { headers });
    } finally {
      remove();
    }
    expect(res.status).toBe(503);
    expect(res.body.type).toBe('ProviderUnavailable');
    expect(await readDomainCollection('throttled.com')).toEqual({});
    const retry = await transfer('throttled.com', { ...demoBody, authcode: 'TEST-CODE' }, { headers });
    expect(retry.status).toBe(202);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 503 when the idempotency record cannot be written', async () => {
    await sandboxDomain('throttled-key.com');
    const remove = inject(
      'throttle-idempotency',
      (command, input) => command.startsWith('Put') && String(input.Item?.pk ?? '').startsWith('IDEMPOTENCY#'),
    );
    try {
      const res = await transfer(
        'throttled-key.com',
        { ...demoBody, authcode: 'TEST-CODE' },
        { headers: { 'Idempotency-Key': 'key-not-stored' } },
      );
      expect(res.status).toBe(503);
      expect(res.body.type).toBe('ProviderUnavailable');
    } finally {
      remove();
    }
    expect(await readDomainCollection('throttled-key.com')).toEqual({});
  });

  it("decides the zone again when the name's zone changed between the read and the transaction (a transfer completing at once)", async () => {
    await sandboxDomain('zone-race.com', { transfer: { stages: [], outcome: 'completed' } });
    const now = toWireTime(new Date());
    // Just before the recording transaction, the account's unmanaged zone for the name appears.
    let raced = false;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (!raced && String(context.commandName).startsWith('TransactWrite')) {
          raced = true;
          await putZone({
            id: 990002,
            domainName: 'zone-race.com',
            customer: 'demo',
            managed: false,
            service: 'BASIC',
            dnssec: false,
            hostMaster: 'hostmaster@zone-race.com',
            refresh: 10800,
            retry: 3600,
            expire: 604800,
            ttl: 3600,
            records: [],
            createdDate: now,
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'zone-race' },
    );
    let res: Awaited<ReturnType<typeof transfer>>;
    try {
      res = await transfer('zone-race.com', { ...demoBody, authcode: 'TEST-CODE', zone: { service: 'BASIC' } });
    } finally {
      db().middlewareStack.remove('zone-race');
    }
    expect(raced).toBe(true);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    // Not a second zone: the zone that appeared is the one now managed.
    expect(await getZone('zone-race.com')).toMatchObject({ id: 990002, customer: 'demo', managed: true });
    expect(transferDetailsOf((await getProcess(res.body.processId, 'demo'))!).zoneId).toBe(990002);
  });
});

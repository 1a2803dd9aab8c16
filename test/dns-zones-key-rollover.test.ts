import { describe, expect, it } from 'vitest';
import { call, otherKey } from './support/api.ts';
import { type KeyData, usePowerDnsWithDelv } from './support/delv.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// A key rollover of a signed zone (issue 37 item 5) against a real PowerDNS: the rollover serves a
// new key beside the old one and waits for the DS (a process, a notification), the acknowledgment
// retires the old key; BIND's `delv` validates the served answers trusting the old key, then both,
// then only the new one (and no longer the old one once it is retired).
const { drain, delv } = usePowerDnsWithDelv();

async function signedZone(name: string): Promise<{ id: number; keyData: KeyData[]; ds: string[] }> {
  const created = await call('POST', '/v2/dns/zones', {
    body: { name, service: 'BASIC', dnssec: true, records: [{ name: `www.${name}`, type: 'A', content: '192.0.2.81', ttl: 300 }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await drain();
  const read = await call('GET', `/v2/dns/zones/${created.body.id}`);
  expect(read.body.dns?.status).toBe('served');
  return { id: created.body.id as number, keyData: read.body.keyData as KeyData[], ds: read.body.dns.ds as string[] };
}

describe('a key rollover', () => {
  it('serves a new key beside the old one, waits for the DS, and retires the old key on ack-ds-update; answers validate throughout', async () => {
    const zone = 'rolled.nl';
    const { id, keyData: oldKeys, ds: oldDs } = await signedZone(zone);
    expect(oldKeys).toHaveLength(1);
    expect(await delv(zone, oldKeys, `www.${zone}`)).toContain('; fully validated');

    const started = await call('POST', `/v2/dns/zones/${id}/key-rollover`, { headers: { 'Idempotency-Key': 'rollover-1' } });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const processId = Number(started.headers['x-process-id']);
    expect(started.body).toMatchObject({
      id: processId,
      status: 'RUNNING',
      statusDetail: 'WAITING_FOR_DS',
      type: 'dnsZone',
      action: 'keyRollover',
      identifier: zone,
    });
    // The same key replays the answer; it starts nothing more.
    const replayed = await call('POST', `/v2/dns/zones/${id}/key-rollover`, { headers: { 'Idempotency-Key': 'rollover-1' } });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(started.body);
    // A second rollover while the first waits for its DS: refused.
    const again = await call('POST', `/v2/dns/zones/${id}/key-rollover`);
    expect(again.status).toBe(400);
    expect(again.body.type).toBe('ObjectStatusProhibitsOperation');

    await drain();
    const during = await call('GET', `/v2/dns/zones/${id}`);
    const bothKeys = during.body.keyData as KeyData[];
    expect(bothKeys).toHaveLength(2);
    expect(bothKeys).toContainEqual(oldKeys[0]);
    const newKeys = bothKeys.filter((k) => k.publicKey !== oldKeys[0]?.publicKey);
    expect(newKeys).toHaveLength(1);
    expect(during.body.dns.ds).toEqual(expect.arrayContaining(oldDs));
    expect((during.body.dns.ds as string[]).length).toBeGreaterThan(oldDs.length);
    // Both keys sign: the answers validate trusting the old key (the parent's DS now) and the new one alone.
    expect(await delv(zone, oldKeys, `www.${zone}`)).toContain('; fully validated');
    expect(await delv(zone, newKeys, `www.${zone}`)).toContain('; fully validated');

    // The notification "waiting for DS", once, with the DS records of both keys.
    const told = await call('GET', `/v2/customers/demo/notifications?eventType=DnsZoneKeyRolloverEvent&process=${processId}`);
    expect(told.status, JSON.stringify(told.body)).toBe(200);
    expect(told.body.entities).toHaveLength(1);
    expect(told.body.entities[0]).toMatchObject({
      eventType: 'DnsZoneKeyRolloverEvent',
      notificationType: 'DomainZoneNotification',
      process: processId,
      processType: 'dnsZone',
      processIdentifier: zone,
      subjectStatus: 'PENDING',
      statusDetail: 'WAITING_FOR_DS',
    });
    const process = await call('GET', `/v2/processes/${processId}`);
    expect(process.body).toMatchObject({ status: 'RUNNING', statusDetail: 'WAITING_FOR_DS' });

    // DNSSEC cannot be switched off while the rollover waits for its DS.
    const off = await call('POST', `/v2/dns/zones/${id}/update`, { body: { dnssec: false } });
    expect(off.status).toBe(400);
    expect(off.body.type).toBe('ObjectStatusProhibitsOperation');

    // Another customer acknowledges nothing: the process answers as missing.
    const foreign = await call('POST', `/v2/processes/${processId}/ack-ds-update`, { key: otherKey });
    expect(foreign.status).toBe(404);

    const acked = await call('POST', `/v2/processes/${processId}/ack-ds-update`);
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    expect(acked.body).toMatchObject({ id: processId, status: 'COMPLETED', type: 'dnsZone', action: 'keyRollover' });
    const twice = await call('POST', `/v2/processes/${processId}/ack-ds-update`);
    expect(twice.status).toBe(400);
    expect(twice.body.type).toBe('ObjectStatusProhibitsOperation');

    await drain();
    const after = await call('GET', `/v2/dns/zones/${id}`);
    expect(after.body.keyData).toEqual(newKeys);
    expect(after.body.dns.ds).not.toEqual(expect.arrayContaining(oldDs));
    expect(await delv(zone, newKeys, `www.${zone}`)).toContain('; fully validated');
    // The old key is gone: trusting it alone, the answers no longer validate.
    expect(await delv(zone, oldKeys, `www.${zone}`)).not.toContain('; fully validated');

    // A second rollover may start now.
    const next = await call('POST', `/v2/dns/zones/${id}/key-rollover`);
    expect(next.status, JSON.stringify(next.body)).toBe(202);
  }, 180_000);

  it("refuses an unsigned zone, another customer's zone like a missing one, and ack-ds-update on another process", async () => {
    const unsigned = await call('POST', '/v2/dns/zones', { body: { name: 'unsigned-roll.nl', service: 'BASIC' } });
    expect(unsigned.status).toBe(201);
    const refused = await call('POST', `/v2/dns/zones/${unsigned.body.id}/key-rollover`);
    expect(refused.status).toBe(400);
    expect(refused.body.type).toBe('ObjectStatusProhibitsOperation');

    const foreign = await call('POST', '/v2/dns/zones/103/key-rollover');
    const missing = await call('POST', '/v2/dns/zones/999999/key-rollover');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);

    // 501 is the demo's transfer process: not a rollover.
    const transfer = await call('POST', '/v2/processes/501/ack-ds-update');
    expect(transfer.status).toBe(400);
    expect(transfer.body.type).toBe('ObjectStatusProhibitsOperation');
  }, 60_000);
});

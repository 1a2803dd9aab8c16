import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { tableName } from '../shared/db/table.ts';
import { ringCount } from '../shared/dns/powerdns.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { resolverOf } from './support/powerdns.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

// GET /v2/dns/zones/{id}/stats against a real PowerDNS: the counts are the queries the server
// answered for the zone's names, read from its query rings.

let pdns: LocalPowerDns;
let feeder: StreamFeeder;

beforeAll(async () => {
  pdns = await startPowerDns();
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
  feeder = await startStreamFeeder({
    tableName: tableName(),
    consumers: streamConsumers,
    pollIntervalMs: 50,
    retryDelayMs: 100,
    log: () => {},
  });
  await feeder.drain(60_000);
}, 180_000);

afterAll(async () => {
  await feeder?.stop();
  await pdns?.stop();
  for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[name];
});

describe('the query counts of a zone', () => {
  it("counts the queries PowerDNS answered for the zone's names, and the NXDOMAIN ones among them", async () => {
    const created = await call('POST', '/v2/dns/zones', {
      body: { name: 'counted.nl', service: 'BASIC', records: [{ name: 'www.counted.nl', type: 'A', content: '192.0.2.71', ttl: 300 }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await feeder.drain();

    const before = await call('GET', `/v2/dns/zones/${created.body.id}/stats`);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(before.body).toEqual({ queries: [{ date: today, qcount: 0, nxcount: 0 }] });

    const resolver = resolverOf(pdns);
    for (let i = 0; i < 3; i++) expect(await resolver.resolve4('www.counted.nl')).toEqual(['192.0.2.71']);
    await expect(resolver.resolve4('missing.counted.nl')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    // Another zone's queries (the demo's, served once the stream carried it) are not this zone's.
    await resolver.resolve4('counted.nl.example').catch(() => []);

    const after = await call('GET', `/v2/dns/zones/${created.body.id}/stats`);
    expect(after.status).toBe(200);
    const [day] = after.body.queries as { date: string; qcount: number; nxcount: number }[];
    // The resolver may ask again on a lost datagram: at least what was asked, never another zone's.
    expect(day?.date).toBe(today);
    expect(day?.qcount).toBeGreaterThanOrEqual(4);
    expect(day?.qcount).toBeLessThanOrEqual(8);
    expect(day?.nxcount).toBeGreaterThanOrEqual(1);
    expect(day?.nxcount).toBeLessThanOrEqual(2);
  }, 60_000);

  it("answers another customer's zone like a missing one", async () => {
    const foreign = await call('GET', '/v2/dns/zones/103/stats');
    const missing = await call('GET', '/v2/dns/zones/999999/stats');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body.message).toBe(missing.body.message.replace('999999', '103'));
  });

  it('sums only the names at or below the zone, whatever their case', () => {
    const ring = {
      name: 'queries',
      type: 'RingStatisticItem',
      value: [
        { name: 'WWW.Counted.nl/A', value: '3' },
        { name: 'counted.nl/SOA', value: '2' },
        { name: 'notcounted.nl/A', value: '5' },
        { name: 'counted.nl.evil/A', value: '7' },
        { name: 'x.counted.nl/TXT', value: 'many' },
      ],
    };
    expect(ringCount(ring, 'counted.nl')).toBe(5);
    expect(ringCount(undefined, 'counted.nl')).toBe(0);
  });
});

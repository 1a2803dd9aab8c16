import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPowerDns, startPowerDns } from '../infra/local/powerdns.ts';
import { type StreamFeeder, startStreamFeeder } from '../infra/local/streams.ts';
import { getZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import { streamConsumers } from '../shared/routes.ts';
import { call } from './support/api.ts';
import { resolverOf } from './support/powerdns.ts';
import { withTableStream } from './support/table-stream.ts';

// Its table feeds stream consumers: a DynamoDB Local of its own with the stream on.
withTableStream();

/**
 * A name server change of a domain with a managed zone (docs/domains.md): the zone's NS records
 * follow the domain's name servers in the transaction of the update, and reach DNS through the
 * table's stream and zone-sync, asked of a real PowerDNS Authoritative on its DNS port.
 */

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
}, 120_000);

afterAll(async () => {
  await feeder?.stop();
  await pdns?.stop();
  for (const name of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[name];
});

/** The NS records DNS answers for a name, sorted; [] while it answers none. */
async function servedNs(name: string): Promise<string[]> {
  return (
    await resolverOf(pdns)
      .resolveNs(name)
      .catch(() => [] as string[])
  ).sort();
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('name servers of a domain with a managed zone', () => {
  it("become the zone's NS records, in the update's transaction, and reach DNS", async () => {
    await feeder.drain(30_000);
    const before = (await getZoneHead('demo-shop.nl'))?.revision ?? 0;
    const ns = ['ns1.vanity-demo.example', 'ns2.vanity-demo.example'];
    const res = await call('POST', '/v2/domains/demo-shop.nl/update', { body: { ns } });
    expect(res.status, res.raw).toBe(200);
    const head = await getZoneHead('demo-shop.nl', true);
    expect(head?.zone.ns).toEqual(ns);
    expect(head?.revision).toBe(before + 1);
    expect((await call('GET', '/v2/domains/demo-shop.nl/zone')).body.ns).toEqual(ns);
    await feeder.drain(30_000);
    await eventually(async () => JSON.stringify(await servedNs('demo-shop.nl')) === JSON.stringify(ns));
  }, 60_000);

  it('leave a zone alone when nothing but other fields change, and another customer cannot touch it', async () => {
    const before = await getZoneHead('demo-shop.nl', true);
    expect((await call('POST', '/v2/domains/demo-shop.nl/update', { body: { autoRenew: false } })).status).toBe(200);
    expect((await getZoneHead('demo-shop.nl', true))?.revision).toBe(before?.revision);
    // other-site.com's zone is another customer's: the demo key's update is a 404 and changes nothing.
    const other = await getZoneHead('other-site.com', true);
    expect((await call('POST', '/v2/domains/other-site.com/update', { body: { ns: ['ns1.x.example', 'ns2.x.example'] } })).status).toBe(
      404,
    );
    expect((await getZoneHead('other-site.com', true))?.revision).toBe(other?.revision);
  });
});

import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parseZone } from 'dnsz';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleDomain, sampleZone } from '../bench/big-data.ts';
import { handler as zoneHandler } from '../functions/zone/handler.ts';
import { migrateTable } from '../infra/migrate.ts';
import { db } from '../shared/db/client.ts';
import { queryPartition } from '../shared/db/items.ts';
import { keys } from '../shared/db/keys.ts';
import { putDomain } from '../shared/db/repositories/domains.ts';
import { putZone } from '../shared/db/repositories/zone-writes.ts';
import { getZone, getZoneHead } from '../shared/db/repositories/zones.ts';
import { tableName } from '../shared/db/table.ts';
import type { ZoneRecord, ZoneRecordEntry } from '../shared/model/zone.ts';
import { apiEvent, call, invoke } from './support/api.ts';
import { recordTableCalls } from './support/sdk-calls.ts';

/**
 * Issue 16 item 1: zones of any realistic size. Each record is an item of its own, so a zone of
 * 10,000 records (Route 53's default limit) and one of 1,000 DKIM-size TXT records (600 KB, over
 * DynamoDB's 400 KB item limit when inline) are stored and served whole; a zone write is never
 * seen half-done.
 */

/** A domain of `demo`, for a zone to hang on. */
async function demoDomain(domainName: string): Promise<void> {
  await putDomain(sampleDomain(domainName));
}

function zoneOf(domainName: string, records: ZoneRecordEntry[], updatedDate = '2026-02-01T00:00:00Z'): ZoneRecord {
  return sampleZone(domainName, records, { id: 8000 + domainName.length, updatedDate });
}

/** `count` A records, `host00000.<domain>` onwards, in `192.0.2.x` / `198.51.100.x` (`variant` shifts the addresses). */
function aRecords(domainName: string, count: number, variant = 0): ZoneRecordEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `host${String(i).padStart(5, '0')}.${domainName}`,
    type: 'A' as const,
    content: `${variant === 0 ? '192.0.2' : '198.51.100'}.${i % 250}`,
    ttl: 3600,
  }));
}

/** `count` TXT records of 500 bytes (`variant` in each), so that a zone of a few thousand spans pages of 1 MB. */
function txtRecords(domainName: string, count: number, variant: string): ZoneRecordEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `t${i}.${domainName}`,
    type: 'TXT' as const,
    content: `${variant}-${i}-`.padEnd(500, 'x'),
    ttl: 3600,
  }));
}

/** A 600-byte DKIM TXT record per selector. */
function dkimRecords(domainName: string, count: number): ZoneRecordEntry[] {
  const key = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.padEnd(600 - 'v=DKIM1; k=rsa; p='.length, 'Qx7');
  return Array.from({ length: count }, (_, i) => ({
    name: `s${i}._domainkey.${domainName}`,
    type: 'TXT' as const,
    content: `v=DKIM1; k=rsa; p=${key}`,
    ttl: 3600,
  }));
}

const big = 'big-zone.com';
const dkim = 'dkim-zone.com';

beforeAll(async () => {
  await Promise.all([demoDomain(big), demoDomain(dkim)]);
  await Promise.all([putZone(zoneOf(big, aRecords(big, 10_000))), putZone(zoneOf(dkim, dkimRecords(dkim, 1000)))]);
}, 120_000);

describe('big zones through the real handler', () => {
  it('serves a zone of 10,000 records whole as JSON, in the order stored', async () => {
    const res = await call('GET', `/v2/domains/${big}/zone`);
    expect(res.status).toBe(200);
    expect(res.body.records).toHaveLength(10_000);
    expect(res.body.records).toEqual(aRecords(big, 10_000));
    expect(res.body.updatedDate).toBe('2026-02-01T00:00:00Z');
  });

  it('serves a zone of 10,000 records whole as a zone file', async () => {
    const res = await call('GET', `/v2/domains/${big}/zone`, { headers: { Accept: 'text/dns' } });
    expect(res.status).toBe(200);
    const parsed = parseZone(res.raw);
    const a = parsed.records.filter((r) => r.type === 'A');
    expect(a).toHaveLength(10_000);
    expect(a[9_999]).toMatchObject({ name: `host09999.${big}`, content: '192.0.2.249' });
  });

  it('stores and serves a zone of 1,000 DKIM-size TXT records (600 KB of records, over the 400 KB item limit)', async () => {
    const records = dkimRecords(dkim, 1000);
    expect(records.reduce((n, r) => n + Buffer.byteLength(r.content), 0)).toBeGreaterThan(400 * 1024);
    const json = await call('GET', `/v2/domains/${dkim}/zone`);
    expect(json.status).toBe(200);
    expect(json.body.records).toEqual(records);
    const file = await call('GET', `/v2/domains/${dkim}/zone`, { headers: { Accept: 'text/dns' } });
    expect(file.status).toBe(200);
    const txt = parseZone(file.raw).records.filter((r) => r.type === 'TXT');
    expect(txt).toHaveLength(1000);
    // Each 600-byte value is written as quoted strings of at most 255 bytes.
    expect(
      file.raw
        .split('\n')
        .find((l) => l.startsWith('s999._domainkey'))
        ?.match(/"[^"]*"/g)?.length,
    ).toBe(3);
  });

  it('keeps one item per record in the domain collection, and the header holds no records', async () => {
    const items = await queryPartition(keys.domainCollection(dkim).pk);
    const header = items.find((i) => i.entity === 'zone');
    expect(header).toMatchObject({ recordCount: 1000, revision: 1 });
    expect(header).not.toHaveProperty('records');
    expect(items.filter((i) => i.entity === 'zoneRecord')).toHaveLength(1000);
  });

  it("reads another customer's big zone with the calls of a missing one (their empty partition, then the name's own items), and answers 404", async () => {
    await call('GET', '/v2/domains/no-such-zone.com/zone', { key: 'other-key' }); // the key's lookup, cached from here on
    const foreign = await recordTableCalls(() => call('GET', `/v2/domains/${big}/zone`, { key: 'other-key' }));
    const missing = await recordTableCalls(() => call('GET', '/v2/domains/no-such-zone.com/zone', { key: 'other-key' }));
    expect(foreign.result.status).toBe(404);
    expect(foreign.result.body.objectType).toBe('Domain');
    expect(foreign.calls).toEqual(['QueryCommand', 'QueryCommand']);
    expect(missing.calls).toEqual(foreign.calls);
  });

  it("checks ownership before reading records: another customer's 10,000-record zone costs what a missing name costs", async () => {
    await call('GET', '/v2/domains/no-such-zone.com/zone', { key: 'other-key' }); // the key's lookup, cached from here on
    const foreign = await recordTableCalls(() => call('GET', `/v2/domains/${big}/zone`, { key: 'other-key' }));
    const missing = await recordTableCalls(() => call('GET', '/v2/domains/no-such-zone.com/zone', { key: 'other-key' }));
    const read = (calls: typeof foreign.details) => calls.reduce((n, c) => n + c.itemsRead, 0);
    // The name's own items at most (domain, transfer, zone header), not a page of its records.
    expect(read(foreign.details)).toBeLessThanOrEqual(3);
    expect(read(foreign.details) - read(missing.details)).toBeLessThanOrEqual(3);
    expect(foreign.details.map((c) => c.itemsAnswered)).toEqual(missing.details.map((c) => c.itemsAnswered));
    // The owner reads the header, then exactly the header's generation of records.
    const own = await recordTableCalls(() => call('GET', `/v2/domains/${big}/zone`));
    expect(own.result.status).toBe(200);
    // Its partition of the name (the domain, the header, the records: putZone writes no DNS
    // standing and no sync ran), and the header's revision again: a read of several pages checks
    // no write came between them. Only the reads of the name count (not the key's lookup, cached
    // or not depending on which tests ran before).
    const ofName = own.details.filter((c) => c.partitions.some((p) => p.startsWith(`DOMAIN#${big}`)));
    expect(ofName.length).toBeGreaterThan(2);
    expect(read(ofName)).toBe(3 + 10_000);
  });
});

/** Runs `hook` once, right after the first Query page of `domainName`'s collection comes back, before the reader sees it. */
function afterFirstPage(domainName: string, hook: () => Promise<void>): () => void {
  const name = `after-first-page-${crypto.randomUUID()}`;
  let done = false;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const input = args.input as {
        ExpressionAttributeValues?: Record<string, unknown>;
        ExclusiveStartKey?: unknown;
        ProjectionExpression?: string;
      };
      if (
        !done &&
        context.commandName === 'QueryCommand' &&
        // The table's partition of the name, or the caller's partition of it (gsi3), where a zone GET reads.
        [keys.domainCollection(domainName).pk, keys.ownDomainCollection(domainName, 'demo').gsi3pk].includes(
          String(input.ExpressionAttributeValues?.[':pk']),
        ) &&
        input.ExclusiveStartKey === undefined &&
        input.ProjectionExpression === undefined
      ) {
        done = true;
        await hook();
      }
      return out;
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

/** Makes the next BatchWrite that deletes items fail (a writer stopped between switching the header and cleaning up). */
function failNextDelete(): () => void {
  const name = `fail-delete-${crypto.randomUUID()}`;
  let failed = false;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, { DeleteRequest?: unknown }[]> };
      const deletes = Object.values(input.RequestItems ?? {}).some((list) => list.some((w) => w.DeleteRequest));
      if (!failed && context.commandName === 'BatchWriteItemCommand' && deletes) {
        failed = true;
        throw Object.assign(new Error('Connection reset'), { code: 'ECONNRESET' });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

/** Makes BatchWrite puts fail after `allowed` requests (a writer stopped while staging records). */
function failPutsAfter(allowed: number): () => void {
  const name = `fail-puts-${crypto.randomUUID()}`;
  let seen = 0;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'BatchWriteItemCommand' && ++seen > allowed)
        throw Object.assign(new Error('Connection reset'), { code: 'ECONNRESET' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

describe('a zone write is never visible half-written: a reader sees the old zone or the new one', () => {
  const name = 'rewrite-zone.com';
  // The other writer runs inside the read here (a hook between its pages), so its time would count
  // against the read's function timeout: the read is given the test's time instead.
  const read = async () => {
    const budget = process.env.LOCAL_FUNCTION_TIMEOUT_MS;
    process.env.LOCAL_FUNCTION_TIMEOUT_MS = '120000';
    try {
      return await invoke(
        zoneHandler,
        apiEvent({
          method: 'GET',
          path: `/v2/domains/${name}/zone`,
          resource: '/v2/domains/{domainName}/zone',
          pathParameters: { domainName: name },
        }),
      );
    } finally {
      process.env.LOCAL_FUNCTION_TIMEOUT_MS = budget;
    }
  };
  // 1.2 and 1.0 MB of records: each read takes two pages or more. Writing them into a DynamoDB Local
  // that the rest of the suite keeps busy takes a minute or more (seconds alone).
  const oldZone = zoneOf(name, txtRecords(name, 2_500, 'old'), '2026-02-01T00:00:00Z');
  const newZone = zoneOf(name, txtRecords(name, 2_000, 'new'), '2026-03-01T00:00:00Z');

  beforeAll(async () => {
    await demoDomain(name);
    await putZone(oldZone);
  }, 180_000);

  it('answers the new zone whole when the zone is rewritten (and the old records deleted) between the pages of a read', async () => {
    const stop = afterFirstPage(name, async () => {
      await putZone(newZone);
    });
    try {
      const res = await read();
      expect(res.status).toBe(200);
      expect(res.body.updatedDate).toBe('2026-03-01T00:00:00Z');
      expect(res.body.records).toEqual(newZone.records);
    } finally {
      stop();
    }
  }, 180_000);

  it('answers a zone whole when the header switches between pages but the old records are still there', async () => {
    await putZone(oldZone);
    const stopDelete = failNextDelete();
    const stop = afterFirstPage(name, async () => {
      await expect(putZone(newZone)).rejects.toThrow('Connection reset');
    });
    try {
      const res = await read();
      expect(res.status).toBe(200);
      // The header switched during the read while the old generation stayed whole (its delete
      // failed): the read answers one generation whole, the old or the new, never a mix.
      expect([oldZone.records, newZone.records]).toContainEqual(res.body.records);
    } finally {
      stop();
      stopDelete();
    }
    // Some of the old generation is still there (the cleanup failed part-way); the next write removes it.
    expect((await queryPartition(keys.domainCollection(name).pk)).filter((i) => i.entity === 'zoneRecord').length).toBeGreaterThan(2_000);
    await putZone(newZone);
    expect((await queryPartition(keys.domainCollection(name).pk)).filter((i) => i.entity === 'zoneRecord')).toHaveLength(2_000);
  }, 180_000);

  it('keeps the old zone whole when a writer stops while staging the new records, and the next write removes what it left', async () => {
    await putZone(oldZone);
    const stop = failPutsAfter(40);
    try {
      await expect(putZone(newZone)).rejects.toThrow('Connection reset');
    } finally {
      stop();
    }
    const res = await read();
    expect(res.body.records).toEqual(oldZone.records);
    const leftovers = (await queryPartition(keys.domainCollection(name).pk)).filter((i) => i.entity === 'zoneRecord').length;
    expect(leftovers).toBeGreaterThan(2_500);
    await putZone(oldZone);
    expect((await queryPartition(keys.domainCollection(name).pk)).filter((i) => i.entity === 'zoneRecord')).toHaveLength(2_500);
  }, 180_000);
});

describe('npm run admin -- migrate', () => {
  it('gives a zone header written before zones were found by id its id entry, so GET /v2/dns/zones/{id} finds it', async () => {
    const name = 'unindexed-zone.com';
    await putZone({ ...zoneOf(name, aRecords(name, 3)), id: 98_765 });
    const head = await getZoneHead(name, true);
    // As an earlier version wrote it: no entry on gsi2.
    await db().send(new UpdateCommand({ TableName: tableName(), Key: keys.zoneByName(name), UpdateExpression: 'REMOVE gsi2pk, gsi2sk' }));
    const id = head?.zone.id as number;
    expect((await call('GET', `/v2/dns/zones/${id}`)).status).toBe(404);
    expect(await migrateTable({ dryRun: true })).toMatchObject({ zonesUnindexed: 1, zonesIndexed: 0 });
    expect(await migrateTable()).toMatchObject({ zonesUnindexed: 1, zonesIndexed: 1 });
    expect(await migrateTable()).toMatchObject({ zonesUnindexed: 0, zonesIndexed: 0 });
    const found = await call('GET', `/v2/dns/zones/${id}`);
    expect(found.status).toBe(200);
    expect(found.body.name).toBe(name);
    expect((await getZoneHead(name, true))?.revision).toBe(head?.revision);
  });

  it("places a zone written before the owner's partitions (gsi3 by name, gsi2 by id): read from the table until then, in one Query after", async () => {
    const name = 'unplaced-zone.com';
    const id = 98_766;
    await demoDomain(name);
    await putZone({ ...zoneOf(name, aRecords(name, 3)), id });
    // As an earlier version wrote them: no gsi3 place, the header's id entry without its owner, none on the records.
    for (const item of await queryPartition(keys.domainCollection(name).pk)) {
      const header = item.entity === 'zone';
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: header ? 'REMOVE gsi3pk SET gsi2pk = :old, gsi2sk = :zone' : 'REMOVE gsi3pk, gsi2pk, gsi2sk',
          ...(header ? { ExpressionAttributeValues: { ':old': `ZONEID#${id}`, ':zone': 'ZONE' } } : {}),
          ...(item.entity === 'domain' ? { UpdateExpression: 'REMOVE gsi3pk' } : {}),
        }),
      );
    }
    const reads = async () => {
      const byName = await recordTableCalls(() => call('GET', `/v2/domains/${name}/zone`));
      const byId = await recordTableCalls(() => call('GET', `/v2/dns/zones/${id}`));
      const own = (details: { partitions: string[] }[]) => details.filter((d) => !d.partitions.some((p) => p.startsWith('APIKEY#'))).length;
      return {
        statuses: [byName.result.status, byId.result.status],
        records: [byName.result.body.records, byId.result.body.records].map((records: unknown[]) => records.length),
        calls: [own(byName.details), own(byId.details)],
      };
    };
    const before = await reads();
    expect(before.statuses).toEqual([200, 200]);
    expect(before.records).toEqual([3, 3]);
    expect(before.calls.every((n) => n > 1)).toBe(true);

    // The domain, the header and its 3 records.
    expect(await migrateTable({ dryRun: true })).toMatchObject({ ownedItemsUnplaced: 5, ownedItemsPlaced: 0 });
    expect(await migrateTable()).toMatchObject({ ownedItemsUnplaced: 5, ownedItemsPlaced: 5 });
    expect(await migrateTable()).toMatchObject({ ownedItemsUnplaced: 0, ownedItemsPlaced: 0 });
    expect(await reads()).toEqual({ statuses: [200, 200], records: [3, 3], calls: [1, 1] });
  }, 60_000);

  it('rewrites a zone stored with its records inline into one item per record, serving the same zone before and after', async () => {
    const name = 'inline-zone.com';
    await demoDomain(name);
    const inline = zoneOf(name, aRecords(name, 500));
    // As an earlier version stored it: one item, records inline.
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...inline, ...keys.zone(name, 'demo'), entity: 'zone' } }));
    const before = await call('GET', `/v2/domains/${name}/zone`);
    expect(before.status).toBe(200);
    expect(before.body.records).toHaveLength(500);

    expect(await migrateTable({ dryRun: true })).toMatchObject({ zonesInline: 1, zonesMigrated: 0 });
    expect(await migrateTable()).toMatchObject({ zonesInline: 1, zonesMigrated: 1 });
    expect(await migrateTable()).toMatchObject({ zonesInline: 0, zonesMigrated: 0 });

    const items = await queryPartition(keys.domainCollection(name).pk);
    expect(items.find((i) => i.entity === 'zone')).not.toHaveProperty('records');
    expect(items.filter((i) => i.entity === 'zoneRecord')).toHaveLength(500);
    const after = await call('GET', `/v2/domains/${name}/zone`);
    expect(after.body).toEqual(before.body);
    expect(await getZone(name)).toEqual(inline);
  }, 60_000);

  it('moves prices and promos stored under the keys of an earlier version to keys that start with their product', async () => {
    const before = await call('GET', '/v2/customers/demo/pricelist');
    const old = {
      customer: 'demo',
      product: 'domain_nl',
      action: 'REGISTRY_LOCK',
      currency: 'EUR',
      price: 2500,
      fromDate: '2026-01-01T00:00:00Z',
    };
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...old, pk: 'PRICELIST#demo', sk: 'PRICE#domain_nl#REGISTRY_LOCK#2026-01-01T00:00:00Z', entity: 'price' },
      }),
    );
    expect(await migrateTable()).toMatchObject({ pricesOldKeys: 1, pricesMigrated: 1 });
    expect(await migrateTable()).toMatchObject({ pricesOldKeys: 0, pricesMigrated: 0 });
    const items = await queryPartition('PRICELIST#demo');
    expect(items.filter((i) => String(i.sk).startsWith('PRICE#'))).toEqual([]);
    expect(items).toContainEqual({ ...old, ...keys.price('demo', 'domain_nl', 'REGISTRY_LOCK', old.fromDate), entity: 'price' });
    const after = await call('GET', '/v2/customers/demo/pricelist');
    expect(after.body.prices.length).toBe(before.body.prices.length + 1);
  }, 60_000);
});

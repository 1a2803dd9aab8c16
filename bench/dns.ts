/**
 * The DNS figures of `npm run bench` (docs/performance.md, docs/dns.md), against a PowerDNS started
 * here and the table the bench uses (DYNAMODB_ENDPOINT and TABLE_NAME set, demo data loaded):
 *   1. from a zone write's answer to the changed record answering on DNS, through the table's
 *      stream and the zone-sync consumer as `npm start` runs them (p50, p99 over the rounds);
 *   2. the zone API: an update's answer to its record answering on DNS (p50, p99), and a
 *      10,000-record zone changed whole, to its last record on DNS;
 *   3. records per second pushed for a 10,000-record zone: the whole sync (read from the table,
 *      plan, PATCH) and the PATCH alone.
 * Run on its own: `npx tsx bench/dns.ts` (a DynamoDB Local of its own, or DYNAMODB_ENDPOINT's, with a fresh table).
 */
import { randomUUID } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { pathToFileURL } from 'node:url';

type Table = (title: string, head: string[], rows: (string | number)[][]) => void;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export async function measureDns(table: Table, rounds = 40): Promise<void> {
  const { startPowerDns } = await import('../infra/local/powerdns.ts');
  const pdns = await startPowerDns();
  Object.assign(process.env, { DNS_PROVIDER: 'powerdns', POWERDNS_API_URL: pdns.apiUrl, POWERDNS_API_KEY: pdns.apiKey });
  const { startStreamFeeder } = await import('../infra/local/streams.ts');
  const { streamConsumers } = await import('../shared/routes.ts');
  const { tableName } = await import('../shared/db/table.ts');
  const { getZone } = await import('../shared/db/repositories/zones.ts');
  const { putZone } = await import('../shared/db/repositories/zone-writes.ts');
  const { PowerDnsProvider } = await import('../shared/dns/powerdns.ts');
  const { syncZone } = await import('../shared/dns/sync.ts');
  const feeder = await startStreamFeeder({ tableName: tableName(), consumers: streamConsumers, log: () => {} });
  const resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`${pdns.dnsAddress}:${pdns.dnsPort}`]);
  let stopped = false;
  try {
    await feeder.drain(120_000);
    // 1. A write of one record of demo-shop.nl, then polling DNS every 2 ms until it answers the new value.
    const zone = await getZone('demo-shop.nl');
    if (!zone) throw new Error('demo-shop.nl is not in the table');
    // putZone answers after it has deleted the zone's previous records, which comes after the switch
    // to the new ones (the change the stream carries): timed from its answer and from its start.
    const fromAnswer: number[] = [];
    const fromStart: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const address = `198.51.100.${(i % 250) + 1}`;
      const records = [...zone.records, { name: 'bench.##DOMAIN##', type: 'A' as const, content: address, ttl: 60 }];
      const started = performance.now();
      await putZone({ ...zone, records, updatedDate: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
      const answered = performance.now();
      for (;;) {
        const got: string[] = await resolver.resolve4('bench.demo-shop.nl').catch(() => []);
        if (got.includes(address)) break;
        if (performance.now() - answered > 30_000) throw new Error('the change did not reach DNS within 30 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      fromAnswer.push(performance.now() - answered);
      fromStart.push(performance.now() - started);
    }
    const row = (what: string, samples: number[]) => {
      if (samples.length === 0) return [what, '-', '-', '-'];
      const s = [...samples].sort((a, b) => a - b);
      return [what, percentile(s, 50).toFixed(0), percentile(s, 99).toFixed(0), (s.at(-1) ?? 0).toFixed(0)];
    };
    table(
      `DNS: a zone write to the changed record answering on DNS (stream polled every 250 ms as Lambda does, ${rounds} writes)`,
      ['from', 'p50 ms', 'p99 ms', 'max ms'],
      [row("the write's answer", fromAnswer), row("the write's start (the whole write included)", fromStart)],
    );

    // 2. The zone API: an update's answer (POST /v2/dns/zones/{id}/update through the local gateway
    // and the real handler) to its new record answering on DNS; then a 10,000-record PREMIUM zone
    // changed by the update use case (the API's 64 KiB body carries about 1,000 records), to DNS.
    const { createGateway } = await import('../infra/local/gateway.ts');
    const gateway = createGateway({ rateLimit: { rate: 10_000, burst: 10_000 } });
    const api = async (method: string, url: string, body?: unknown) => {
      const out = await gateway.handle({
        method,
        url,
        headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (out.status >= 300) throw new Error(`${method} ${url} answered ${out.status}: ${out.body.slice(0, 300)}`);
      return JSON.parse(out.body) as { id: number };
    };
    const created = await api('POST', '/v2/dns/zones', { name: `api-${randomUUID().slice(0, 8)}.nl` });
    const viewed = await api('GET', `/v2/dns/zones/${created.id}`);
    const apiName = (viewed as unknown as { name: string }).name;
    const apiAnswer: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const address = `198.51.100.${(i % 250) + 1}`;
      await api('POST', `/v2/dns/zones/${created.id}/update`, {
        records: [{ name: `www.${apiName}`, type: 'A', content: address, ttl: 300 }],
      });
      const answered = performance.now();
      for (;;) {
        const got: string[] = await resolver.resolve4(`www.${apiName}`).catch(() => []);
        if (got.includes(address)) break;
        if (performance.now() - answered > 30_000) throw new Error('the update did not reach DNS within 30 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      apiAnswer.push(performance.now() - answered);
    }
    const { updateZone } = await import('../shared/dns/update-zone.ts');
    const { commitNothing } = await import('../shared/db/repositories/commit-with.ts');
    const { withRecords, getZoneHead } = await import('../shared/db/repositories/zones.ts');
    const { checkZone } = await import('../shared/dns/zone-edit.ts');
    const benchCaller = { customer: 'demo', user: 'demo/bench' };
    const bigName = `big-${randomUUID().slice(0, 8)}.nl`;
    const bigZone = await api('POST', '/v2/dns/zones', { name: bigName, service: 'PREMIUM' });
    const bigRecords = (tag: number, count = 10_000) =>
      Array.from({ length: count }, (_, i) => ({
        name: `h${i}.${bigName}`,
        type: 'A' as const,
        content: `10.${tag}.${i >> 8}.${i & 255}`,
        ttl: 300,
      }));
    // Loading: the zone's 10,000 records written by the update use case (untimed in the rows below but printed).
    let start = performance.now();
    await updateZone(benchCaller, { id: bigZone.id }, { records: bigRecords(1) }, undefined, commitNothing);
    const loadMs = performance.now() - start;
    await feeder.drain(300_000);
    // Where an update's time goes, apart from its writes: the read of the zone and the validation of 10,000 records.
    const head = await getZoneHead(bigName, true);
    if (!head) throw new Error(`${bigName} is not in the table`);
    start = performance.now();
    const bigCurrent = await withRecords(head);
    const readMs = performance.now() - start;
    start = performance.now();
    checkZone(bigCurrent);
    const validateMs = performance.now() - start;

    // Through the handler (POST /v2/dns/zones/{id}/update, the local gateway with the function's 10 s):
    // a settings change of the 10,000-record zone (its SOA's hostmaster), `bigRounds` times; the time to
    // the answer, and from the answer to the new SOA serial answering on DNS.
    const serialOf = (zone: { defaultRecords: { content: string }[] }) => Number(zone.defaultRecords[0]?.content.split(' ')[2]);
    const settingsAnswer: number[] = [];
    const settingsDns: number[] = [];
    const bigRounds = 5;
    const settingsStatuses: number[] = [];
    for (let i = 0; i < bigRounds; i++) {
      const sent = performance.now();
      const out = await gateway.handle({
        method: 'POST',
        url: `/v2/dns/zones/${bigZone.id}/update`,
        headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
        body: JSON.stringify({ hostMaster: `hm${i}@${bigName}` }),
      });
      const answered = performance.now();
      settingsAnswer.push(answered - sent);
      settingsStatuses.push(out.status);
      // An answer past the function's time (503) says nothing of the zone: the next round reads it again.
      if (out.status !== 200) continue;
      const serial = serialOf(JSON.parse(out.body) as { defaultRecords: { content: string }[] });
      for (;;) {
        const soa = await resolver.resolveSoa(bigName).catch(() => undefined);
        if (soa && soa.serial >= serial) break;
        if (performance.now() - answered > 60_000) throw new Error('the settings change did not reach DNS within 60 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      settingsDns.push(performance.now() - answered);
    }
    // Through the handler: the 10,000 records replaced by 500 (about 30 KB of body; the 64 KiB body carries
    // about 1,000), once: the answer, and from the answer to the last new record answering on DNS.
    const sent = performance.now();
    const replaced = await gateway.handle({
      method: 'POST',
      url: `/v2/dns/zones/${bigZone.id}/update`,
      headers: { Authorization: 'ApiKey demo-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ records: bigRecords(3, 500) }),
    });
    const replaceAnswerMs = performance.now() - sent;
    const answered = performance.now();
    for (;;) {
      const got: string[] = await resolver.resolve4(`h499.${bigName}`).catch(() => []);
      if (got.includes('10.3.1.243')) break;
      if (performance.now() - answered > 300_000) throw new Error('the 500-record update did not reach DNS within 300 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    const replaceDnsMs = performance.now() - answered;

    // The use case alone (no body limit): every one of 10,000 records changed, as before.
    await updateZone(benchCaller, { id: bigZone.id }, { records: bigRecords(1) }, undefined, commitNothing);
    await feeder.drain(300_000);
    start = performance.now();
    await updateZone(benchCaller, { id: bigZone.id }, { records: bigRecords(2) }, undefined, commitNothing);
    const bigWriteMs = performance.now() - start;
    for (;;) {
      const got: string[] = await resolver.resolve4(`h9999.${bigName}`).catch(() => []);
      if (got.includes('10.2.39.15')) break;
      if (performance.now() - start > 600_000) throw new Error('the 10,000-record update did not reach DNS within 600 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    const bigDnsMs = performance.now() - start;
    table(
      `DNS: the zone API, an update to its answer on DNS (${rounds} updates), and a 10,000-record zone changed whole`,
      ['what', 'p50 ms', 'p99 ms', 'max ms'],
      [
        row("POST /v2/dns/zones/{id}/update: from the update's answer", apiAnswer),
        row(
          `10,000-record zone, settings change through the handler (${bigRounds} runs, answers ${settingsStatuses.join(' ')}): the update's answer`,
          settingsAnswer,
        ),
        row('the same: from the answer to the new SOA serial on DNS', settingsDns),
        [
          `10,000-record zone, records replaced by 500 through the handler (1 run): the answer (${replaced.status})`,
          replaceAnswerMs.toFixed(0),
          '',
          '',
        ],
        ['the same: from the answer to the last new record on DNS', replaceDnsMs.toFixed(0), '', ''],
        [
          '10,000-record PREMIUM zone, every record changed (the use case, no body limit): validate, stage, switch, delete the old',
          bigWriteMs.toFixed(0),
          '',
          '',
        ],
        ['the same: from its start to the last record answering on DNS', bigDnsMs.toFixed(0), '', ''],
        ['of which: the read of the 10,000 records (one generation, paged Query)', readMs.toFixed(0), '', ''],
        ['of which: the validation of the 10,000 records (checkZone)', validateMs.toFixed(0), '', ''],
        ['loading the zone: its 10,000 records written by the use case (no old ones)', loadMs.toFixed(0), '', ''],
      ],
    );

    // 3. A 10,000-record zone: the sync of a new zone as a whole, and the PATCH on its own.
    await feeder.stop();
    stopped = true;
    const name = `bench-${randomUUID().slice(0, 8)}.nl`;
    const big = Array.from({ length: 10_000 }, (_, i) => ({
      name: `h${i}.${name}`,
      type: 'A' as const,
      content: `10.0.${i >> 8}.${i & 255}`,
      ttl: 300,
    }));
    await putZone({ ...zone, id: 99_999, domainName: name, records: big, dcvRecords: [] });
    const provider = new PowerDnsProvider({ apiUrl: pdns.apiUrl, apiKey: pdns.apiKey });
    start = performance.now();
    await syncZone(provider, name);
    const syncMs = performance.now() - start;
    const other = `patch-${name}`;
    await provider.createZone(other, { nameServers: ['ns1.registrar-sandbox.example.'], dnssec: false });
    const changes = big.map((r) => ({
      action: 'upsert' as const,
      recordSet: { name: `${r.name.replace(name, other)}.`, type: 'A', ttl: 300, values: [r.content] },
    }));
    start = performance.now();
    await provider.applyChanges(other, changes);
    const patchMs = performance.now() - start;
    table(
      'DNS: records pushed per second, a 10,000-record zone',
      ['what', 'ms', 'records/s'],
      [
        ['sync of the new zone (read 10,000 records, plan, create, PATCH)', syncMs.toFixed(0), (10_000 / (syncMs / 1000)).toFixed(0)],
        ['PATCH of 10,000 record sets alone', patchMs.toFixed(0), (10_000 / (patchMs / 1000)).toFixed(0)],
      ],
    );
  } finally {
    if (!stopped) await feeder.stop();
    await pdns.stop();
    for (const v of ['DNS_PROVIDER', 'POWERDNS_API_URL', 'POWERDNS_API_KEY']) delete process.env[v];
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.AWS_REGION ??= 'eu-west-1';
  process.env.TABLE_NAME = `bench-dns-${randomUUID()}`;
  // A DynamoDB Local of its own (in memory) unless DYNAMODB_ENDPOINT names one, as `npm run bench` does.
  const { startDynamoDbLocal } = await import('../infra/local/dynamodb-local.ts');
  const own = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  if (own) process.env.DYNAMODB_ENDPOINT = own.endpoint;
  const { ensureTable } = await import('../infra/local/ensure-table.ts');
  const { demoDataFile, loadDataset, readDatasetFile } = await import('../infra/dataset.ts');
  await ensureTable(process.env.TABLE_NAME);
  await loadDataset(await readDatasetFile(demoDataFile));
  const print: Table = (title, head, rows) => {
    console.log(`\n### ${title}\n`);
    for (const r of [head, ...rows]) console.log(`| ${r.join(' | ')} |`);
  };
  try {
    await measureDns(print);
  } finally {
    await own?.stop();
  }
}
